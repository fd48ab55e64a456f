package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/internal/app"
)

// setPasswordCommand is `hoplink user set-password --email E
// --password-stdin`: an operator's account recovery. The password policy
// applies, every session of the user ends, the account's sign-in lockout is
// lifted, and the audit log records password.changed by the operator.
func (e *cliEnv) setPasswordCommand() *cli.Command {
	return &cli.Command{
		Name:  "set-password",
		Usage: "set a user's password (read from standard input) and sign the user out everywhere",
		Flags: opFlags(
			&cli.StringFlag{Name: "email", Required: true, Usage: "the user's email"},
			&cli.BoolFlag{Name: "password-stdin", Required: true, Usage: "read the password from standard input (first line)"},
			jsonFlag,
		),
		Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
			password, err := readPassword(e.stdin)
			if err != nil {
				return nil, nil, err
			}
			u, err := ops.SetPassword(c.Context, c.String("email"), password)
			if err != nil {
				return nil, nil, suggestUserCreate(err, c.String("email"))
			}
			e.record(c.Context, ops, audit.Event{Action: audit.PasswordChanged, TargetType: "user", TargetID: u.ID.String()})
			return userDoc{ID: u.ID, Email: u.Email, CreatedAt: u.CreatedAt}, func(w io.Writer) {
				fmt.Fprintf(w, "Set the password of %s (%s); every session of the user has ended.\n", u.Email, u.ID)
			}, nil
		}),
	}
}

// record writes an audit event whose actor is the operator. A failure is
// reported on standard error: the change it records has been made.
func (e *cliEnv) record(ctx context.Context, ops *app.Ops, ev audit.Event) {
	ev.ActorType = audit.ActorOperator
	if err := ops.Audit.Record(ctx, ev); err != nil {
		fmt.Fprintf(e.stderr, "hoplink: warning: the audit log did not record %s: %v\n", ev.Action, err)
	}
}

// memberID returns the user id of the member of orgID with email, or nil
// when there is none (the removal then fails with its own error).
func memberID(ctx context.Context, ops *app.Ops, orgID uuid.UUID, email string) *uuid.UUID {
	n, err := identity.NormalizeEmail(email)
	if err != nil {
		return nil
	}
	members, err := ops.Orgs.Members(ctx, orgID)
	if err != nil {
		return nil
	}
	for _, m := range members {
		if strings.EqualFold(m.Email, n) {
			return &m.UserID
		}
	}
	return nil
}

// scopeList joins scopes with commas, as the audit log's details show them.
func scopeList(scopes []auth.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}
