// Command hoplink is Hoplink's admin CLI and its all-in-one server.
package main

import (
	"os"
)

func main() {
	if err := newApp(os.Stdout, os.Stderr, os.Stdin).Run(os.Args); err != nil {
		os.Exit(1)
	}
}
