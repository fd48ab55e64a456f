package app

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestZeroDisablesMapsTheOperatorsZeroToOff(t *testing.T) {
	assert.Equal(t, time.Duration(-1), zeroDisables(0), "the packages' options take a negative value as off")
	assert.Equal(t, time.Second, zeroDisables(time.Second))
}
