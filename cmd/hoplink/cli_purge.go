package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/hoplink/hoplink/internal/app"
)

// purgeCommand is `hoplink purge`: one pass of the retention purge that
// hoplink serve and hoplink-api run every hour.
func (e *cliEnv) purgeCommand() *cli.Command {
	return &cli.Command{
		Name: "purge",
		Usage: "delete the clicks, installs and attribution attempts older than each organization's plan keeps, " +
			"and clear the IP address of clicks older than 7 days (what the servers do every hour); " +
			"prints what it removed",
		Flags: opFlags(jsonFlag),
		// A first purge of a large database takes as long as its rows; it
		// changes them in small batches, so stopping it loses nothing.
		Action: e.runWith(app.OpenOps, 0, func(c *cli.Context, ops *app.Ops) (any, func(io.Writer), error) {
			res, err := ops.Purger.RunOnce(c.Context)
			if err != nil {
				return nil, nil, err
			}
			return res, func(w io.Writer) {
				fmt.Fprintf(w, "clicks deleted:    %d\ninstalls deleted:  %d\nattempts deleted:  %d\nIPs cleared:       %d\n",
					res.ClicksDeleted, res.InstallsDeleted, res.AttemptsDeleted, res.IPsCleared)
				fmt.Fprintf(w, "install IPs cleared: %d\n", res.InstallIPsCleared)
				fmt.Fprintf(w, "unstored click counts deleted (quarter hours): %d\n", res.UnstoredDeleted)
				fmt.Fprintf(w, "click segments deleted: %d\nclick segments cleared of IPs: %d\ndeleted links compacted: %d\n",
					res.SegmentsDeleted, res.SegmentIPsCleared, res.LinksCompacted)
				fmt.Fprintf(w, "link rollup days folded: %d\n", res.LinkDaysFolded)
			}, nil
		}),
	}
}
