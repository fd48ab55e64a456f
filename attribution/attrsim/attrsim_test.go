package attrsim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution/attrsim"
)

// small is a world small enough for every test run; the full benchmark is
// the attrsim command (BENCHMARKS.md).
var small = attrsim.Config{Seed: 7, Households: 1500, OrganicShare: 0.5}

func TestRunIsReproducible(t *testing.T) {
	a, err := attrsim.Run(t.Context(), small)
	require.NoError(t, err)
	b, err := attrsim.Run(t.Context(), small)
	require.NoError(t, err)
	assert.Equal(t, a.Markdown(), b.Markdown(), "one seed, one report")

	other := small
	other.Seed = 8
	c, err := attrsim.Run(t.Context(), other)
	require.NoError(t, err)
	assert.NotEqual(t, a.Markdown(), c.Markdown(), "another seed, another world")
}

func TestWorldHasWhatTheBenchmarkNeeds(t *testing.T) {
	w := attrsim.Generate(small)
	kinds := map[attrsim.NetKind]int{}
	organic, retries, referrers := 0, 0, 0
	for _, in := range w.Installs {
		kinds[in.Net]++
		if in.Session < 0 {
			organic++
		}
		if in.RetryOf >= 0 {
			retries++
		}
		if in.Referrer {
			referrers++
		}
	}
	for _, k := range []attrsim.NetKind{attrsim.HomeV4, attrsim.HomeV6, attrsim.HomeCGNAT, attrsim.CellV4, attrsim.CellV6} {
		assert.Positive(t, kinds[k], "installs on network kind %d", k)
	}
	assert.Positive(t, organic)
	assert.Positive(t, retries)
	assert.Positive(t, referrers)
	multi := 0
	for _, s := range w.Sessions {
		if len(s) > 1 {
			multi++
		}
	}
	assert.Positive(t, multi, "sessions of several clicks")
}

func TestMatcherBeatsTheBaselines(t *testing.T) {
	r, err := attrsim.Run(t.Context(), small)
	require.NoError(t, err)
	ours := r.Methods[0]
	assert.Equal(t, 1.0, ours.Deterministic.Precision(), "deterministic precision is 1")
	assert.Positive(t, ours.Deterministic.Matches)
	assert.Positive(t, ours.Probabilistic.Matches)
	assert.Positive(t, r.Retries)
	assert.Zero(t, r.RetryMismatches, "a retried matched request gets the same answer")
	for _, b := range r.Methods[1:] {
		assert.Greater(t, ours.Overall.Precision(), b.Overall.Precision(), b.Name)
		assert.Less(t, ours.Overall.OrganicWrong(), b.Overall.OrganicWrong(), b.Name)
	}
}
