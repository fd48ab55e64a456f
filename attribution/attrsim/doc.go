// Package attrsim is the seeded, reproducible accuracy benchmark of
// attribution (issue 5, item 6).
//
// Generate builds a synthetic world from a Config and its seed: households
// with devices (platform, OS version, model, screen, language, timezone),
// home networks (IPv4 NAT, IPv6 /64 prefixes, some broadband behind carrier
// NAT) and cellular carriers (carrier NAT pools shared by hundreds to
// thousands of devices, one IPv6 carrier), link clicks in sessions of one to
// three clicks, installs that follow a click after a realistic delay, often
// on another network (Wi-Fi and cellular switching), organic installs from
// the same households and carriers, retried requests, reinstalls, and several
// apps and campaigns at once. Nothing reads a clock or global randomness:
// one seed gives one world.
//
// Run feeds the world's clicks to MemStore, an in-memory attribution.Store,
// and sends every install request through attribution.Matcher.Match, the
// production code path, in time order. It scores the matcher and three
// baselines on the same data (Baselines) and reports precision, recall and
// the share of organic installs wrongly matched, overall, per IP class and
// per delay bucket. Report.Markdown writes the table of BENCHMARKS.md.
//
// The full benchmark is a command:
//
//	go run ./attribution/attrsim/cmd/attrsim -organic 0.5
//	go run ./attribution/attrsim/cmd/attrsim -organic 0.8
//
// This package imports attribution, linking and the standard library; it
// never imports store.
package attrsim
