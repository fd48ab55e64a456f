// Command hoplink-auth runs the Hoplink OAuth authorization server and MCP endpoint.
package main

import (
	"fmt"
	"os"

	"github.com/hoplink/hoplink/internal/app"
)

func main() {
	if err := app.ServiceCLI("hoplink-auth", "the Hoplink OAuth authorization server and MCP endpoint", app.AuthService).Run(os.Args); err != nil {
		fmt.Fprintf(os.Stderr, "hoplink-auth: %v\n", err)
		os.Exit(1)
	}
}
