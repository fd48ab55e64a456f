package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/linking"
)

func printApp(w io.Writer, a *linking.App) {
	orNone := func(s *string) string {
		if s == nil {
			return "-"
		}
		return *s
	}
	fmt.Fprintf(w, "id:                   %s\norg_id:               %s\nname:                 %s\nhandle:               %s\nlink_domain:          %s\ndefault_link_domain:  %s\nlegacy_apex_enabled:  %t\nprevious_link_domain: %s\nios_bundle_id:        %s\nandroid_package_name: %s\n",
		a.ID, a.OrgID, a.Name, a.Handle, a.LinkDomain, a.DefaultLinkDomain, a.LegacyApexEnabled,
		orNone(a.PreviousLinkDomain), orNone(a.IOSBundleID), orNone(a.AndroidPackageName))
}

func (e *cliEnv) appCommand() *cli.Command {
	return &cli.Command{
		Name:  "app",
		Usage: "manage apps",
		Subcommands: []*cli.Command{
			{
				Name: "rename",
				Usage: "rename an app's subdomain to {HANDLE}.{default link domain}, for the member --by (an owner or " +
					"admin of the app's organization); the old subdomain keeps serving for the rename period",
				ArgsUsage: "ID HANDLE",
				Flags: appOpFlags(jsonFlag,
					&cli.StringFlag{Name: "by", Required: true, Usage: "email of the owner or admin the rename is attributed to"},
					&cli.BoolFlag{Name: "confirm", Usage: "rename even though links use the current subdomain"}),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					id, handle, err := idAndValue(c, "ID HANDLE", "app id")
					if err != nil {
						return nil, nil, err
					}
					st, m, err := ops.RenameApp(c.Context, id, handle, c.String("by"), c.Bool("confirm"))
					if err != nil {
						return nil, nil, err
					}
					prev := ""
					if st.PreviousLinkDomain != nil {
						prev = *st.PreviousLinkDomain
					}
					ev := audit.Event{OrgID: &m.OrgID, Action: audit.AppRenamed, ActorType: audit.ActorUser, ActorID: &m.UserID,
						TargetType: "app", TargetID: id.String(),
						Details: map[string]string{"via": "cli", "handle": st.Handle, "link_domain": st.LinkDomain, "previous_link_domain": prev}}
					if err := ops.Audit.Record(c.Context, ev); err != nil {
						fmt.Fprintf(e.stderr, "hoplink: warning: the audit log did not record %s: %v\n", ev.Action, err)
					}
					return st, func(w io.Writer) {
						fmt.Fprintf(w, "handle:               %s\nlink_domain:          %s\nprevious_link_domain: %s\n", st.Handle, st.LinkDomain, prev)
						if st.RenamePeriod != nil {
							fmt.Fprintf(w, "rename period ends:   %s\n", st.RenamePeriod.EndsAt.Format(time.RFC3339))
						}
					}, nil
				}),
			},
			{
				Name: "set-legacy",
				Usage: "let an app's links use the service's default link domain too (true) or not (false); " +
					"the app's default link domain is left as it is",
				ArgsUsage: "ID true|false",
				Flags:     appOpFlags(jsonFlag),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					id, value, err := idAndValue(c, "ID true|false", "app id")
					if err != nil {
						return nil, nil, err
					}
					var legacy bool
					switch strings.ToLower(value) {
					case "true":
						legacy = true
					case "false":
					default:
						return nil, nil, errcode.Newf(errcode.ValidationError, "expected true or false, not %q", value)
					}
					a, err := ops.Apps.SetLegacy(c.Context, id, legacy)
					if err != nil {
						return nil, nil, err
					}
					return a, func(w io.Writer) { printApp(w, a) }, nil
				}),
			},
		},
	}
}
