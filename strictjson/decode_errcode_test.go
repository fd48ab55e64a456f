package strictjson_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/strictjson"
)

type codedTarget struct {
	Count      int                                 `json:"count"`
	Parameters *params.LinkConfig                  `json:"parameters"`
	Patch      apitype.Optional[params.LinkConfig] `json:"patch"`
}

// A field whose UnmarshalJSON returns our error type keeps its own field
// names and code: a parameter config names "parameters.injected[0].mode",
// and PARAM_CONFIG_TOO_LARGE stays PARAM_CONFIG_TOO_LARGE.
func TestDecodeKeepsCodedErrorsOfFields(t *testing.T) {
	var dst codedTarget
	err := strictjson.DecodeObject([]byte(`{"count":"x","parameters":{"injected":[{"key":"a","value":"b","mode":"never"}],"suppressedOrgKeys":[]}}`), &dst)
	e, ok := errcode.As(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, errcode.ValidationError, e.Code)
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Field)
	}
	assert.Equal(t, []string{"count", "parameters.injected[0].mode", "parameters.inheritOrgInjected"}, names)

	injected := make([]string, params.MaxInjected+1)
	for i := range injected {
		injected[i] = fmt.Sprintf(`{"key":"k%d","value":"v","mode":null}`, i)
	}
	cfg := `{"injected":[` + strings.Join(injected, ",") + `],"inheritOrgInjected":true,"suppressedOrgKeys":[]}`
	for _, field := range []string{"parameters", "patch"} {
		err = strictjson.DecodeObject([]byte(`{"`+field+`":`+cfg+`}`), &dst)
		assert.Equal(t, errcode.ParamConfigTooLarge, errcode.CodeOf(err), field)
	}

	dst = codedTarget{}
	require.NoError(t, strictjson.DecodeObject([]byte(`{"patch":null}`), &dst))
	assert.True(t, dst.Patch.Set && dst.Patch.Null, "null is told apart from absent")
}
