package linking

import (
	"errors"
	"fmt"
	"io"
)

// GeneratedSlugLength is the length of a generated slug.
const GeneratedSlugLength = 7

// DefaultSlugAttempts is how many generated slugs GenerateUniqueSlug tries
// when its caller passes fewer than one attempt.
const DefaultSlugAttempts = 5

// slugAlphabet holds the 36 characters of a generated slug. A generated slug
// has no hyphen, so it never starts or ends with one.
const slugAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// unbiasedLimit is the largest multiple of len(slugAlphabet) not above 256
// (7*36 = 252). Bytes at or above it are skipped, so every character is
// equally likely.
const unbiasedLimit = 256 - 256%len(slugAlphabet)

// maxReservedDraws bounds how many reserved slugs GenerateSlug draws before
// it gives up: a source that keeps producing one (a broken or constant source)
// must not loop forever. Seven-character reserved slugs are a handful of 36^7, so a
// working source never gets near the bound.
const maxReservedDraws = 64

// ErrNoFreeSlug is returned, wrapped, by GenerateUniqueSlug when every slug it
// generated was taken. With 36^7 possible slugs this means a nearly full domain
// or a taken function that always answers true; the service reports it as an
// internal error, since the client did nothing wrong.
var ErrNoFreeSlug = errors.New("linking: no free slug found")

// GenerateSlug returns a random slug of GeneratedSlugLength characters from
// [a-z0-9], each character equally likely, never a reserved slug.
//
// random is the source of randomness, crypto/rand.Reader in production and a
// fixed reader in tests; it must not be nil. GenerateSlug reads one byte per
// missing character, skips bytes 252 to 255 (which would favour the first
// four characters) and reads again for the characters still missing. A read
// error is returned wrapped.
func GenerateSlug(random io.Reader) (string, error) {
	if random == nil {
		return "", errors.New("linking: GenerateSlug needs a source of randomness")
	}
	var out, buf [GeneratedSlugLength]byte
	for draw := 0; draw < maxReservedDraws; draw++ {
		for n := 0; n < len(out); {
			chunk := buf[:len(out)-n]
			if _, err := io.ReadFull(random, chunk); err != nil {
				return "", fmt.Errorf("linking: reading randomness: %w", err)
			}
			for _, c := range chunk {
				if int(c) < unbiasedLimit {
					out[n] = slugAlphabet[int(c)%len(slugAlphabet)]
					n++
				}
			}
		}
		// A generated slug has no hyphen, so it is never "test" nor any other
		// shorter reserved slug; only a seven-letter one can come out.
		if s := string(out[:]); !IsReservedSlug(s, true) {
			return s, nil
		}
	}
	return "", errors.New("linking: the source of randomness keeps producing reserved slugs")
}

// GenerateUniqueSlug generates slugs with GenerateSlug until taken reports one
// free, trying at most attempts slugs (DefaultSlugAttempts when attempts < 1).
//
// taken reports whether a slug is already used on the link's domain (SPEC.md,
// domain rule 8: a link's slug, the old address of a moved link, or a slug held
// for a link waiting to move). A lookup before the insert is only a hint, since
// another request may take the slug in between; taken may therefore be the
// insert itself, answering true when the unique index refused the slug. An
// error from taken stops the search and is returned wrapped, so
// errcode.ErrUnavailable still reads as SERVICE_UNAVAILABLE.
//
// Collisions: there are 36^7 = 78,364,164,096 seven-character slugs. With n
// links on a domain one draw collides with probability n/36^7: 1.3e-5 at a
// million links, 1.3e-3 at a hundred million. Attempts are independent, so
// five attempts all fail with probability (n/36^7)^5: 3.4e-25 at a million
// links and 3.4e-15 at a hundred million. Collisions themselves are not rare:
// by the birthday bound, among about 330,000 generated slugs on one domain
// (1.18 * sqrt(36^7)) two coincide with probability one half, which is why the
// retry exists.
//
// When every attempt is taken it returns an error wrapping ErrNoFreeSlug.
func GenerateUniqueSlug(random io.Reader, taken func(slug string) (bool, error), attempts int) (string, error) {
	if taken == nil {
		return "", errors.New("linking: GenerateUniqueSlug needs a taken function")
	}
	if attempts < 1 {
		attempts = DefaultSlugAttempts
	}
	for i := 0; i < attempts; i++ {
		slug, err := GenerateSlug(random)
		if err != nil {
			return "", err
		}
		used, err := taken(slug)
		if err != nil {
			return "", fmt.Errorf("linking: checking generated slug %q: %w", slug, err)
		}
		if !used {
			return slug, nil
		}
	}
	return "", fmt.Errorf("%w: %d generated slugs were all taken", ErrNoFreeSlug, attempts)
}
