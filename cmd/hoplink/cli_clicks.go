package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/app"
)

// clickFilterFlags are the analytics filters, as the API names them but in
// kebab case.
var clickFilterFlags = []struct{ flag, usage string }{
	{"domain", "keep the clicks on this link domain"},
	{"tag", "keep the clicks of links that carry this tag"},
	{"source", "keep the clicks of this source (redirect or app_open)"},
	{"platform", "keep the clicks from this platform (ios, android, desktop or unknown)"},
	{"country", "keep the clicks from this country (ISO 3166-1 alpha-2)"},
	{"utm-source", "keep the clicks with this utm_source"},
	{"utm-medium", "keep the clicks with this utm_medium"},
	{"utm-campaign", "keep the clicks with this utm_campaign"},
}

func (e *cliEnv) clicksCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "org", Required: true, Usage: "organization id"},
		&cli.StringFlag{Name: "from", Usage: "inclusive start, RFC 3339 (default: 30 days before --to)"},
		&cli.StringFlag{Name: "to", Usage: "exclusive end, RFC 3339 (default: now)"},
		&cli.StringFlag{Name: "link-id", Usage: "keep the clicks of this link (its id)"},
		&cli.StringFlag{Name: "app-id", Usage: "keep the clicks of this app's links (its id)"},
	}
	for _, f := range clickFilterFlags {
		flags = append(flags, &cli.StringFlag{Name: f.flag, Usage: f.usage})
	}
	return &cli.Command{
		Name:  "clicks",
		Usage: "read clicks",
		Subcommands: []*cli.Command{
			{
				Name: "export",
				Usage: "write an organization's stored clicks as CSV on standard output, straight from the database " +
					"(the columns of GET /v1/analytics/exports/{id}/download); a progress line goes to standard " +
					"error when it is a terminal",
				Flags:  opFlags(flags...),
				Action: e.exportClicks,
			},
		},
	}
}

// exportClicks runs `hoplink clicks export`. It has no time limit (an
// export takes as long as its rows), and prints a failure on stderr only:
// stdout holds nothing but the CSV.
func (e *cliEnv) exportClicks(c *cli.Context) error {
	err := func() error {
		if _, err := positional(c); err != nil {
			return err
		}
		for _, f := range c.Command.Flags {
			if name := f.Names()[0]; e.required[f] && !c.IsSet(name) {
				return errcode.Field(name, "is required (--"+name+")")
			}
		}
		orgID, in, err := exportInput(c)
		if err != nil {
			return err
		}
		cfg, err := app.ConfigFromCLI(c)
		if err != nil {
			return &errcode.Error{Code: errcode.ValidationError, Message: err.Error()}
		}
		ops, err := app.OpenOps(c.Context, cfg)
		if err != nil {
			return err
		}
		defer ops.Close()
		var progress func(int64)
		if isTerminal(e.stderr) {
			progress = func(rows int64) { fmt.Fprintf(e.stderr, "\r%d rows written", rows) }
		}
		rows, err := ops.ExportClicks(c.Context, orgID, in, e.stdout, progress)
		if progress != nil {
			fmt.Fprintf(e.stderr, "\r%d rows written\n", rows)
		}
		return err
	}()
	if err != nil {
		e.failAs(false, err)
	}
	return err
}

// exportInput reads the organization, the window and the filters of an
// export from c's flags, naming every bad one in one VALIDATION_ERROR.
func exportInput(c *cli.Context) (uuid.UUID, analytics.StartExportInput, error) {
	var in analytics.StartExportInput
	var fields []errcode.FieldError
	bad := func(name, msg string) { fields = append(fields, errcode.FieldError{Field: name, Message: msg}) }
	orgID, err := uuid.Parse(c.String("org"))
	if err != nil {
		bad("org", "must be a UUID")
	}
	for _, t := range []struct {
		name string
		dst  **time.Time
	}{{"from", &in.From}, {"to", &in.To}} {
		if !c.IsSet(t.name) {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, c.String(t.name))
		if err != nil {
			bad(t.name, "must be an RFC 3339 date-time")
			continue
		}
		*t.dst = &at
	}
	for _, id := range []struct {
		name string
		dst  **uuid.UUID
	}{{"link-id", &in.LinkID}, {"app-id", &in.AppID}} {
		if !c.IsSet(id.name) {
			continue
		}
		v, err := uuid.Parse(c.String(id.name))
		if err != nil {
			bad(id.name, "must be a UUID")
			continue
		}
		*id.dst = &v
	}
	text := map[string]**string{
		"domain": &in.Domain, "tag": &in.Tag, "source": &in.Source, "platform": &in.Platform, "country": &in.Country,
		"utm-source": &in.UTMSource, "utm-medium": &in.UTMMedium, "utm-campaign": &in.UTMCampaign,
	}
	for _, f := range clickFilterFlags {
		if c.IsSet(f.flag) {
			v := c.String(f.flag)
			*text[f.flag] = &v
		}
	}
	if len(fields) > 0 {
		return orgID, in, errcode.Validation(fields...)
	}
	return orgID, in, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
