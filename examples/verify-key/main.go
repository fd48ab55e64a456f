// Command verify-key shows how a service embeds Hoplink's key handling with
// package auth alone: it generates an API key, keeps only its SHA-256 hash,
// and checks presented keys against that hash, as an authenticating proxy
// or an internal tool would. No server, database or fx is involved.
//
// Run it with: go run ./examples/verify-key
package main

import (
	"fmt"
	"log"

	"github.com/hoplink/hoplink/auth"
)

func main() {
	// Generate a key; a nil reader draws from crypto/rand.
	raw, err := auth.GenerateKey(nil, auth.LivePrefix)
	if err != nil {
		log.Fatal(err)
	}
	// Store only the hash. The raw key goes to its owner once.
	stored := auth.HashKey(raw)
	fmt.Println("stored hash length:", len(stored))

	for _, presented := range []string{raw, raw[:len(raw)-1] + "x", "Bearer " + raw, "svc_live_short"} {
		fmt.Printf("%-12s %v\n", describe(presented, raw), verify(presented, stored))
	}

	// A header is parsed the way the API parses it.
	if token, ok := auth.BearerToken("Bearer " + raw); ok {
		fmt.Println("from header: ", verify(token, stored))
	}
}

// verify checks that presented has the key format and hashes to stored.
func verify(presented, stored string) bool {
	if _, ok := auth.KeyPrefix(presented); !ok {
		return false
	}
	return auth.HashMatches(presented, stored)
}

func describe(presented, raw string) string {
	switch {
	case presented == raw:
		return "right key:"
	case len(presented) == len(raw):
		return "wrong key:"
	default:
		return "malformed:"
	}
}
