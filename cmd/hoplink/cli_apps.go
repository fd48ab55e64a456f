package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

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
				Name: "set-legacy",
				Usage: "let an app's links use the service's default link domain too (true) or not (false); " +
					"the app's default link domain is left as it is",
				ArgsUsage: "ID true|false",
				Flags:     opFlags(jsonFlag),
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
