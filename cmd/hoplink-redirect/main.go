// Command hoplink-redirect runs the Hoplink link-domain service: redirects, previews, password pages and association files.
package main

import (
	"fmt"
	"os"

	"github.com/hoplink/hoplink/internal/app"
)

func main() {
	if err := app.ServiceCLI("hoplink-redirect", "the Hoplink link-domain service: redirects, previews, password pages and association files", app.RedirectService).Run(os.Args); err != nil {
		fmt.Fprintf(os.Stderr, "hoplink-redirect: %v\n", err)
		os.Exit(1)
	}
}
