// Command hoplink-api runs the Hoplink REST API service.
package main

import (
	"fmt"
	"os"

	"github.com/hoplink/hoplink/internal/app"
)

func main() {
	if err := app.ServiceCLI("hoplink-api", "the Hoplink REST API service", app.APIService).Run(os.Args); err != nil {
		fmt.Fprintf(os.Stderr, "hoplink-api: %v\n", err)
		os.Exit(1)
	}
}
