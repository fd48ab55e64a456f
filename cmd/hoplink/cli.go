package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/audit"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/internal/app"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/version"
)

// cliEnv carries the streams of one run, so tests can capture them.
type cliEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	// required are the flags marked Required, checked by the commands
	// themselves (see checkUsage).
	required map[cli.Flag]bool
	// jsonArg says whether the arguments ask for --json, for usage errors
	// found before the flags could be parsed.
	jsonArg bool
}

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print exactly one JSON document on standard output"}

func newApp(stdout, stderr io.Writer, stdin io.Reader) *cli.App {
	env := &cliEnv{stdout: stdout, stderr: stderr, stdin: stdin, required: map[cli.Flag]bool{}}
	a := &cli.App{
		Name:      "hoplink",
		Usage:     "self-hostable deep links: the admin CLI and the all-in-one server",
		Version:   version.Get().String(),
		Writer:    stdout,
		ErrWriter: stderr,
		Reader:    stdin,
		// Errors are printed by the commands themselves (with --json as an envelope).
		ExitErrHandler: func(*cli.Context, error) {},
		Before: func(c *cli.Context) error {
			env.jsonArg = jsonRequested(c.Args().Slice())
			return nil
		},
		Commands: []*cli.Command{
			env.serveCommand(),
			env.migrateCommand(),
			env.orgCommand(),
			env.keyCommand(),
			env.appCommand(),
			env.userCommand(),
			env.memberCommand(),
			env.clicksCommand(),
			env.purgeCommand(),
			env.backupCommand(),
		},
	}
	a.Action = env.unknownCommand(cli.ShowAppHelp)
	// hoplink itself takes no flags; they follow the command.
	a.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		fmt.Fprintf(stderr, "hoplink: %v (flags follow the command: hoplink org list --json)\n", err)
		return err
	}
	env.checkUsage(a.Commands)
	return a
}

// unknownCommand returns the action of the app and of every command group:
// help without arguments, and otherwise a failure naming the unknown command
// (urfave/cli would exit with status 1 and print nothing).
func (e *cliEnv) unknownCommand(help cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if !c.Args().Present() {
			return help(c)
		}
		err := errcode.Newf(errcode.ValidationError, "unknown command %q", c.Args().First())
		e.failAs(e.jsonArg, err)
		fmt.Fprintf(e.stderr, "Run '%s --help' for usage.\n", c.Command.HelpName)
		return err
	}
}

// checkUsage makes the commands report their usage errors like every other
// failure (with --json, as the error envelope on stdout) instead of printing
// help text on stdout: a flag parse error goes through OnUsageError, and
// required flags are checked by run rather than by urfave/cli.
func (e *cliEnv) checkUsage(cmds []*cli.Command) {
	for _, cmd := range cmds {
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			err = errcode.New(errcode.ValidationError, err.Error())
			e.failAs(e.jsonArg, err)
			fmt.Fprintf(e.stderr, "Run '%s --help' for usage.\n", c.Command.HelpName)
			return err
		}
		for _, f := range cmd.Flags {
			switch f := f.(type) {
			case *cli.StringFlag:
				if f.Required {
					f.Required, f.Usage = false, f.Usage+" (required)"
					e.required[f] = true
				}
			case *cli.BoolFlag:
				if f.Required {
					f.Required, f.Usage = false, f.Usage+" (required)"
					e.required[f] = true
				}
			}
		}
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			cmd.Action = e.unknownCommand(cli.ShowSubcommandHelp)
		}
		e.checkUsage(cmd.Subcommands)
	}
}

// jsonRequested reports whether args ask for --json, looking at the raw
// arguments because a usage error stops the flags from being parsed.
func jsonRequested(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "json" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}

// positional returns c's positional arguments after applying the flags that
// follow them (`hoplink org get ID --json`), which the flag package leaves
// unparsed because it stops at the first positional argument. It may be
// called more than once.
func positional(c *cli.Context) ([]string, error) {
	var pos []string
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var flag cli.Flag
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), name) {
				flag = f
			}
		}
		if flag == nil {
			return nil, errcode.Newf(errcode.ValidationError, "flag provided but not defined: %s", a)
		}
		if _, isBool := flag.(*cli.BoolFlag); isBool && !hasValue {
			value = "true"
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, errcode.Newf(errcode.ValidationError, "flag needs an argument: %s", a)
			}
			i++
			value = args[i]
		}
		if err := c.Set(name, value); err != nil {
			return nil, errcode.Newf(errcode.ValidationError, "invalid value %q for flag %s", value, a)
		}
	}
	return pos, nil
}

// run wraps a command action: it applies the flags that follow positional
// arguments, checks the required flags, builds the Config, opens the
// database for the CLI (migrating SQLite), and prints a failure as text on
// stderr or, with --json, as the error envelope on stdout.
func (e *cliEnv) run(fn func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error)) cli.ActionFunc {
	return e.runWith(app.OpenOps, time.Minute, fn)
}

// runWith is run with open instead of app.OpenOps, and a command that may
// take timeout (none when zero) instead of a minute.
func (e *cliEnv) runWith(open func(context.Context, app.Config) (*app.Ops, error), timeout time.Duration,
	fn func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error)) cli.ActionFunc {
	return func(c *cli.Context) error {
		if _, err := positional(c); err != nil {
			e.failAs(e.jsonArg || c.Bool("json"), err)
			return err
		}
		err := func() error {
			for _, f := range c.Command.Flags {
				if name := f.Names()[0]; e.required[f] && !c.IsSet(name) {
					return errcode.Field(name, "is required (--"+name+")")
				}
			}
			cfg, err := app.ConfigFromCLI(c)
			if err != nil {
				// The operator's own mistake, not an internal error.
				return &errcode.Error{Code: errcode.ValidationError, Message: err.Error()}
			}
			ctx, cancel := context.WithCancel(c.Context)
			if timeout > 0 {
				ctx, cancel = context.WithTimeout(c.Context, timeout)
			}
			defer cancel()
			c.Context = ctx
			ops, err := open(ctx, cfg)
			if err != nil {
				return err
			}
			defer ops.Close()
			if ops.Created != "" {
				// A mistyped --db would otherwise answer from an empty database.
				fmt.Fprintf(e.stderr, "hoplink: note: %s did not exist; this command created it, an empty database\n", ops.Created)
			}
			doc, text, err := fn(c, ops)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			text(e.stdout)
			return nil
		}()
		if err != nil {
			e.fail(c, err)
		}
		return err
	}
}

func (e *cliEnv) fail(c *cli.Context, err error) {
	e.failAs(c.Bool("json"), err)
}

// failAs prints err on stderr and, when asJSON, as the error envelope on stdout.
func (e *cliEnv) failAs(asJSON bool, err error) {
	if asJSON {
		_, body := httperr.Envelope(err)
		if _, ok := errcode.As(err); !ok && errcode.CodeOf(err) == errcode.InternalError {
			body = map[string]any{"error": map[string]any{"code": errcode.InternalError, "message": err.Error()}}
		}
		_ = json.NewEncoder(e.stdout).Encode(body)
	}
	if ce, ok := errcode.As(err); ok {
		fmt.Fprintf(e.stderr, "hoplink: %s", ce.Message)
		for _, f := range ce.Fields {
			if !strings.HasPrefix(ce.Message, f.Field+":") {
				fmt.Fprintf(e.stderr, "; %s: %s", f.Field, f.Message)
			}
		}
		fmt.Fprintln(e.stderr)
		return
	}
	fmt.Fprintf(e.stderr, "hoplink: %v\n", err)
}

func parseID(s, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, errcode.Newf(errcode.InvalidID, "%s %q is not a valid UUID", what, s)
	}
	return id, nil
}

// idAndValue reads the two positional arguments "ID VALUE" (usage names them
// in the error) and parses the first as the id of what.
func idAndValue(c *cli.Context, usage, what string) (uuid.UUID, string, error) {
	args, err := positional(c)
	if err != nil {
		return uuid.Nil, "", err
	}
	if len(args) != 2 {
		return uuid.Nil, "", errcode.New(errcode.ValidationError, "expected two arguments: "+usage)
	}
	id, err := parseID(args[0], what)
	return id, args[1], err
}

func oneArg(c *cli.Context, name string) (string, error) {
	args, err := positional(c)
	if err != nil {
		return "", err
	}
	if len(args) != 1 {
		return "", errcode.Newf(errcode.ValidationError, "expected exactly one argument: %s", name)
	}
	return args[0], nil
}

func (e *cliEnv) serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the API, link domains and auth endpoints on one listener (migrates SQLite on start)",
		Flags: append(app.Flags(true),
			&cli.BoolFlag{Name: "no-bootstrap", Usage: "do not create a first organization and key on an empty database"},
		),
		Action: func(c *cli.Context) error {
			cfg, err := app.ConfigFromCLI(c)
			if err == nil {
				err = app.CheckDB(cfg)
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "hoplink: %v\n", err)
				return err
			}
			opts := app.Options(cfg, app.StoreOptions{Migrate: !cfg.IsPostgres()},
				app.ServeAll(app.BootstrapOptions{Enabled: !c.Bool("no-bootstrap"), Out: e.stdout}))
			if err := app.Run(opts); err != nil {
				fmt.Fprintf(e.stderr, "hoplink: %v\n", err)
				return err
			}
			return nil
		},
	}
}

func (e *cliEnv) migrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "apply pending database migrations (--status: list applied and pending ones, change nothing)",
		Flags: opFlags(jsonFlag,
			&cli.BoolFlag{Name: "status", Usage: "list the migrations this version knows, applied and pending, and apply none"}),
		Action: func(c *cli.Context) error {
			return e.runWith(app.OpenOpsForMigrate, time.Minute, func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
				if c.Bool("status") {
					return migrationStatus(c, ops)
				}
				names, err := ops.Migrate(c.Context)
				if err != nil {
					return nil, nil, err
				}
				if names == nil {
					names = []string{}
				}
				return map[string]any{"applied": names}, func(w io.Writer) {
					if len(names) == 0 {
						fmt.Fprintln(w, "The database is up to date.")
						return
					}
					fmt.Fprintf(w, "Applied %d migrations: %s\n", len(names), strings.Join(names, ", "))
				}, nil
			})(c)
		},
	}
}

// migrationRow is one migration in `migrate --status --json`.
type migrationRow struct {
	Name      string     `json:"name"`
	Applied   bool       `json:"applied"`
	AppliedAt *time.Time `json:"applied_at"`
}

// migrationStatus answers `migrate --status`: every migration this build
// knows, oldest first, and how many are pending.
func migrationStatus(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
	list, err := ops.MigrationStatus(c.Context)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]migrationRow, len(list))
	pending := 0
	for i, m := range list {
		rows[i] = migrationRow{Name: m.Name, Applied: m.Applied()}
		if m.Applied() {
			at := m.AppliedAt.UTC().Truncate(time.Second)
			rows[i].AppliedAt = &at
		} else {
			pending++
		}
	}
	doc := map[string]any{"data": rows, "applied": len(rows) - pending, "pending": pending}
	return doc, func(w io.Writer) {
		for _, r := range rows {
			if r.Applied {
				fmt.Fprintf(w, "applied  %s  %s\n", r.Name, r.AppliedAt.Format(time.RFC3339))
			} else {
				fmt.Fprintf(w, "pending  %s\n", r.Name)
			}
		}
		if pending == 0 {
			fmt.Fprintf(w, "%d migrations, all applied: the database is up to date.\n", len(rows))
			return
		}
		fmt.Fprintf(w, "%d migrations: %d applied, %d pending; `hoplink migrate` applies them.\n", len(rows), len(rows)-pending, pending)
	}, nil
}

type orgCreated struct {
	Organization *org.Organization `json:"organization"`
	APIKey       *auth.IssuedKey   `json:"api_key"`
}

type dataDoc[T any] struct {
	Data []T `json:"data"`
}

func printOrg(w io.Writer, o *org.Organization) {
	fmt.Fprintf(w, "id:                   %s\nname:                 %s\nslug:                 %s\nplan:                 %s\nmonthly_click_limit:  %d\nbilling_period_start: %s\ncreated_at:           %s\n",
		o.ID, o.Name, o.Slug, o.Plan, o.MonthlyClickLimit, o.BillingPeriodStart.Format(time.RFC3339), o.CreatedAt.Format(time.RFC3339))
}

func (e *cliEnv) orgCommand() *cli.Command {
	planUsage := "free, starter, growth or scale"
	return &cli.Command{
		Name:  "org",
		Usage: "manage organizations",
		Subcommands: []*cli.Command{
			{
				Name:  "create",
				Usage: "create an organization and its bootstrap API key (every requestable scope, no creator)",
				Flags: opFlags(
					&cli.StringFlag{Name: "name", Required: true, Usage: "the organization's name"},
					&cli.StringFlag{Name: "plan", Value: "free", Usage: planUsage},
					jsonFlag,
				),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					o, key, err := ops.Orgs.Create(c.Context, c.String("name"), org.Plan(c.String("plan")))
					if err != nil {
						return nil, nil, err
					}
					return orgCreated{Organization: o, APIKey: key}, func(w io.Writer) {
						printOrg(w, o)
						fmt.Fprintf(w, "\nBootstrap API key (shown only this once):\n\n    %s\n", key.RawKey)
					}, nil
				}),
			},
			{
				Name:  "list",
				Usage: "list organizations",
				Flags: opFlags(jsonFlag),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					orgs, err := ops.Orgs.List(c.Context)
					if err != nil {
						return nil, nil, err
					}
					if orgs == nil {
						orgs = []org.Organization{}
					}
					return dataDoc[org.Organization]{Data: orgs}, func(w io.Writer) {
						tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
						fmt.Fprintln(tw, "ID\tNAME\tSLUG\tPLAN")
						for _, o := range orgs {
							fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.ID, o.Name, o.Slug, o.Plan)
						}
						tw.Flush()
					}, nil
				}),
			},
			{
				Name:      "get",
				Usage:     "show an organization",
				ArgsUsage: "ID",
				Flags:     opFlags(jsonFlag),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					arg, err := oneArg(c, "ID")
					if err != nil {
						return nil, nil, err
					}
					id, err := parseID(arg, "organization id")
					if err != nil {
						return nil, nil, err
					}
					o, err := ops.Orgs.ByID(c.Context, id)
					if err != nil {
						return nil, nil, err
					}
					return o, func(w io.Writer) { printOrg(w, o) }, nil
				}),
			},
			{
				Name:      "set-plan",
				Usage:     "move an organization to another plan (" + planUsage + ")",
				ArgsUsage: "ID PLAN",
				Flags:     opFlags(jsonFlag),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					id, plan, err := idAndValue(c, "ID PLAN", "organization id")
					if err != nil {
						return nil, nil, err
					}
					o, err := ops.Orgs.SetPlan(c.Context, id, org.Plan(plan))
					if err != nil {
						return nil, nil, err
					}
					return o, func(w io.Writer) { printOrg(w, o) }, nil
				}),
			},
		},
	}
}

func printKey(w io.Writer, k *auth.Key) {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	fmt.Fprintf(w, "id:         %s\ntype:       %s\nname:       %s\nkey_prefix: %s\nscopes:     %s\n", k.ID, k.Type, k.Name, k.Prefix, strings.Join(scopes, ","))
	if k.AppID != nil {
		fmt.Fprintf(w, "app_id:     %s\n", k.AppID)
	}
	if k.CreatedBy != nil {
		fmt.Fprintf(w, "created_by: %s\n", k.CreatedBy)
	}
	if k.ExpiresAt != nil {
		fmt.Fprintf(w, "expires_at: %s\n", k.ExpiresAt.Format(time.RFC3339))
	}
}

func (e *cliEnv) keyCommand() *cli.Command {
	return &cli.Command{
		Name:  "key",
		Usage: "manage API and SDK keys",
		Subcommands: []*cli.Command{
			{
				Name:  "create",
				Usage: "create an API key (--scopes) or an SDK key (--type sdk); the raw key is shown once",
				Flags: opFlags(
					&cli.StringFlag{Name: "org", Required: true, Usage: "organization id"},
					&cli.StringFlag{Name: "name", Required: true, Usage: "key name (1 to 100 characters)"},
					&cli.StringFlag{Name: "scopes", Usage: "comma-separated scopes of an API key, among: " + scopeList(auth.RequestableScopes) +
						" (an SDK key has " + scopeList(auth.SDKScopes) + ", always)"},
					&cli.StringFlag{Name: "type", Value: "api", Usage: "api or sdk"},
					&cli.StringFlag{Name: "app", Usage: "app id an SDK key is tied to"},
					&cli.StringFlag{Name: "expires-at", Usage: "RFC 3339 expiry of an API key"},
					&cli.StringFlag{Name: "created-by", Usage: "user id of the member the key acts for (the role layer then applies)"},
					&cli.BoolFlag{Name: "test", Usage: "make a svc_test_ key"},
					jsonFlag,
				),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					orgID, err := parseID(c.String("org"), "--org")
					if err != nil {
						return nil, nil, err
					}
					in := auth.CreateKeyInput{Name: c.String("name"), Type: auth.KeyType(c.String("type")), Test: c.Bool("test")}
					for _, s := range strings.Split(c.String("scopes"), ",") {
						if s = strings.TrimSpace(s); s != "" {
							in.Scopes = append(in.Scopes, auth.Scope(s))
						}
					}
					if v := c.String("app"); v != "" {
						id, err := parseID(v, "--app")
						if err != nil {
							return nil, nil, err
						}
						in.AppID = &id
					}
					if v := c.String("expires-at"); v != "" {
						t, err := time.Parse(time.RFC3339, v)
						if err != nil {
							return nil, nil, errcode.Field("expires_at", "must be an RFC 3339 date-time")
						}
						in.ExpiresAt = &t
					}
					var createdBy *uuid.UUID
					if v := c.String("created-by"); v != "" {
						id, err := parseID(v, "--created-by")
						if err != nil {
							return nil, nil, err
						}
						createdBy = &id
					}
					k, err := ops.CreateKey(c.Context, orgID, createdBy, in)
					if err != nil {
						return nil, nil, err
					}
					e.record(c.Context, ops, audit.Event{Action: audit.KeyCreated, OrgID: &orgID, TargetType: "key", TargetID: k.ID.String(),
						Details: map[string]string{"name": k.Name, "type": string(k.Type), "scopes": scopeList(k.Scopes)}})
					return k, func(w io.Writer) {
						printKey(w, &k.Key)
						fmt.Fprintf(w, "\nRaw key (shown only this once):\n\n    %s\n", k.RawKey)
					}, nil
				}),
			},
			{
				Name:  "list",
				Usage: "list the keys of an organization (never their raw values)",
				Flags: opFlags(&cli.StringFlag{Name: "org", Required: true, Usage: "organization id"}, jsonFlag),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					orgID, err := parseID(c.String("org"), "--org")
					if err != nil {
						return nil, nil, err
					}
					keys, err := ops.ListKeys(c.Context, orgID)
					if err != nil {
						return nil, nil, err
					}
					if keys == nil {
						keys = []auth.Key{}
					}
					return dataDoc[auth.Key]{Data: keys}, func(w io.Writer) {
						tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
						fmt.Fprintln(tw, "ID\tTYPE\tNAME\tSCOPES")
						for _, k := range keys {
							scopes := make([]string, len(k.Scopes))
							for i, s := range k.Scopes {
								scopes[i] = string(s)
							}
							fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, k.Type, k.Name, strings.Join(scopes, ","))
						}
						tw.Flush()
					}, nil
				}),
			},
			{
				Name:      "revoke",
				Usage:     "revoke (delete) a key for good",
				ArgsUsage: "ID",
				Flags:     opFlags(jsonFlag),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					arg, err := oneArg(c, "ID")
					if err != nil {
						return nil, nil, err
					}
					id, err := parseID(arg, "key id")
					if err != nil {
						return nil, nil, err
					}
					k, err := ops.RevokeKey(c.Context, id)
					if err != nil {
						return nil, nil, err
					}
					e.record(c.Context, ops, audit.Event{Action: audit.KeyRevoked, OrgID: &k.OrgID, TargetType: "key", TargetID: k.ID.String()})
					return map[string]any{"id": k.ID, "revoked": true}, func(w io.Writer) {
						fmt.Fprintf(w, "Revoked key %s (%s).\n", k.ID, k.Name)
					}, nil
				}),
			},
		},
	}
}

type userDoc struct {
	ID        uuid.UUID `json:"id"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
}

type memberDoc struct {
	OrgID    uuid.UUID `json:"org_id"`
	UserID   uuid.UUID `json:"user_id"`
	Email    string    `json:"email"`
	Role     auth.Role `json:"role"`
	JoinedAt time.Time `json:"joined_at"`
}

func (e *cliEnv) userCommand() *cli.Command {
	return &cli.Command{
		Name:  "user",
		Usage: "manage users",
		Subcommands: []*cli.Command{
			{
				Name:  "create",
				Usage: "create a user; the password is read from standard input",
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
					u, err := ops.Orgs.CreateUser(c.Context, c.String("email"), password)
					if err != nil {
						return nil, nil, err
					}
					return userDoc{ID: u.ID, Email: u.Email, CreatedAt: u.CreatedAt}, func(w io.Writer) {
						fmt.Fprintf(w, "Created user %s (%s).\n", u.Email, u.ID)
					}, nil
				}),
			},
			e.setPasswordCommand(),
		},
	}
}

func readPassword(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", errcode.Field("password", "standard input held no password")
	}
	return line, nil
}

func (e *cliEnv) memberCommand() *cli.Command {
	return &cli.Command{
		Name:  "member",
		Usage: "manage organization members",
		Subcommands: []*cli.Command{
			{
				Name:  "add",
				Usage: "make a user a member of an organization",
				Flags: opFlags(
					&cli.StringFlag{Name: "org", Required: true, Usage: "organization id"},
					&cli.StringFlag{Name: "email", Required: true, Usage: "the user's email"},
					&cli.StringFlag{Name: "role", Required: true, Usage: "owner, admin or member"},
					jsonFlag,
				),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					orgID, err := parseID(c.String("org"), "--org")
					if err != nil {
						return nil, nil, err
					}
					m, err := ops.Orgs.AddMember(c.Context, orgID, c.String("email"), auth.Role(c.String("role")))
					if err != nil {
						return nil, nil, suggestUserCreate(err, c.String("email"))
					}
					e.record(c.Context, ops, audit.Event{Action: audit.MemberAdded, OrgID: &orgID, TargetType: "user", TargetID: m.UserID.String(),
						Details: map[string]string{"role": string(m.Role)}})
					return memberDoc{OrgID: m.OrgID, UserID: m.UserID, Email: m.Email, Role: m.Role, JoinedAt: m.CreatedAt}, func(w io.Writer) {
						fmt.Fprintf(w, "Added %s to %s as %s.\n", m.Email, m.OrgID, m.Role)
					}, nil
				}),
			},
			{
				Name:  "set-role",
				Usage: "change a member's role (owner, admin or member)",
				Description: "Gives the member of --org whose email is --email the role --role: owner, admin or member.\n" +
					"The last owner cannot be made an admin or member (LAST_OWNER). The change is in the audit log with the actor operator.",
				Flags: opFlags(
					&cli.StringFlag{Name: "org", Required: true, Usage: "organization id"},
					&cli.StringFlag{Name: "email", Required: true, Usage: "the member's email"},
					&cli.StringFlag{Name: "role", Required: true, Usage: "owner, admin or member"},
					jsonFlag,
				),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					orgID, err := parseID(c.String("org"), "--org")
					if err != nil {
						return nil, nil, err
					}
					m, err := ops.SetMemberRole(c.Context, orgID, c.String("email"), auth.Role(c.String("role")))
					if err != nil {
						return nil, nil, err
					}
					e.record(c.Context, ops, audit.Event{Action: audit.RoleChanged, OrgID: &orgID, TargetType: "user", TargetID: m.UserID.String(),
						Details: map[string]string{"role": string(m.Role)}})
					return memberDoc{OrgID: orgID, UserID: m.UserID, Email: m.Email, Role: m.Role, JoinedAt: m.JoinedAt}, func(w io.Writer) {
						fmt.Fprintf(w, "%s is now %s of %s.\n", m.Email, m.Role, orgID)
					}, nil
				}),
			},
			{
				Name:  "remove",
				Usage: "remove a user from an organization; the keys the user created stop working",
				Flags: opFlags(
					&cli.StringFlag{Name: "org", Required: true, Usage: "organization id"},
					&cli.StringFlag{Name: "email", Required: true, Usage: "the user's email"},
					jsonFlag,
				),
				Action: e.run(func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
					orgID, err := parseID(c.String("org"), "--org")
					if err != nil {
						return nil, nil, err
					}
					email := c.String("email")
					userID := memberID(c.Context, ops, orgID, email)
					if err := ops.Orgs.RemoveMember(c.Context, orgID, email); err != nil {
						return nil, nil, err
					}
					if userID != nil {
						e.record(c.Context, ops, audit.Event{Action: audit.MemberRemoved, OrgID: &orgID, TargetType: "user", TargetID: userID.String()})
					}
					return map[string]any{"org_id": orgID, "email": strings.ToLower(strings.TrimSpace(email)), "removed": true}, func(w io.Writer) {
						fmt.Fprintf(w, "Removed %s from %s.\n", email, orgID)
					}, nil
				}),
			},
		},
	}
}

// opFlags returns the operator flags an admin command uses (the database)
// followed by the command's own flags. The servers' flags (listen address,
// URLs, logging, Redis...) are serve's alone.
func opFlags(own ...cli.Flag) []cli.Flag {
	return append(app.FlagsNamed("db"), own...)
}

// appOpFlags are opFlags with the default link domain, which the answers
// about apps (their link_domain) are built from.
func appOpFlags(own ...cli.Flag) []cli.Flag {
	return append(app.FlagsNamed("db", "default-link-domain"), own...)
}

// suggestUserCreate adds to a "user not found" the command that creates the
// user: members are users first.
func suggestUserCreate(err error, email string) error {
	ce, ok := errcode.As(err)
	if !ok || ce.Code != errcode.NotFound || ce.Message != "user not found" {
		return err
	}
	return &errcode.Error{Code: ce.Code, Message: fmt.Sprintf(
		"user not found: create the user first with `hoplink user create --email %s --password-stdin`", email)}
}
