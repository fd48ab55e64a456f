// Command attrsim runs the attribution accuracy benchmark and prints its
// tables (BENCHMARKS.md).
//
//	go run ./attribution/attrsim/cmd/attrsim -organic 0.5
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/hoplink/hoplink/attribution/attrsim"
)

func main() {
	cfg := attrsim.DefaultConfig
	flag.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the world")
	flag.IntVar(&cfg.Households, "households", cfg.Households, "households in the world")
	flag.IntVar(&cfg.Days, "days", cfg.Days, "days of clicks")
	flag.Float64Var(&cfg.OrganicShare, "organic", cfg.OrganicShare, "share of installs that follow no click (0 to 1)")
	flag.Parse()
	r, err := attrsim.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(r.Markdown())
}
