package apitype_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/errcode"
)

func ptr(n int) *int { return &n }

func TestPageBounds(t *testing.T) {
	tests := []struct {
		name          string
		limit, offset *int
		wantLimit     int
		wantOffset    int
		fields        []string
	}{
		{"absent parameters take the defaults", nil, nil, apitype.DefaultPageLimit, 0, nil},
		{"the largest limit is allowed", ptr(apitype.MaxPageLimit), ptr(40), 100, 40, nil},
		{"the smallest limit is allowed", ptr(1), ptr(0), 1, 0, nil},
		{"a limit of 0 is refused", ptr(0), nil, 0, 0, []string{"limit"}},
		{"a limit over the maximum is refused", ptr(101), nil, 0, 0, []string{"limit"}},
		{"a negative offset is refused", nil, ptr(-1), 0, 0, []string{"offset"}},
		{"both bad parameters are named in one error", ptr(0), ptr(-1), 0, 0, []string{"limit", "offset"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, o, err := apitype.PageBounds(tt.limit, tt.offset)
			if tt.fields == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.wantLimit, l)
				assert.Equal(t, tt.wantOffset, o)
				return
			}
			e, ok := errcode.As(err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, errcode.ValidationError, e.Code)
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			assert.Equal(t, tt.fields, got)
		})
	}
}

func TestNewPaginationTellsWhetherMoreFollow(t *testing.T) {
	assert.Equal(t, apitype.Pagination{Total: 3, Limit: 2, Offset: 0, HasMore: true}, apitype.NewPagination(3, 2, 0))
	assert.Equal(t, apitype.Pagination{Total: 3, Limit: 2, Offset: 2, HasMore: false}, apitype.NewPagination(3, 2, 2))
	b, err := json.Marshal(apitype.NewPagination(0, 20, 0))
	require.NoError(t, err)
	assert.JSONEq(t, `{"total":0,"limit":20,"offset":0,"has_more":false}`, string(b))
}

func TestOptionalTellsAbsentFromNullFromAValue(t *testing.T) {
	var body struct {
		Name apitype.Optional[string]   `json:"name"`
		Tags apitype.Optional[[]string] `json:"tags"`
		Age  apitype.Optional[int]      `json:"age"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"name":"shop","tags":null}`), &body))
	assert.Equal(t, apitype.Some("shop"), body.Name)
	assert.Equal(t, apitype.Null[[]string](), body.Tags)
	assert.Equal(t, apitype.Optional[int]{}, body.Age, "absent")
	assert.Equal(t, "shop", *body.Name.Ptr())
	assert.Nil(t, body.Tags.Ptr(), "null")
	assert.Nil(t, body.Age.Ptr(), "absent")

	err := json.Unmarshal([]byte(`{"age":"x"}`), &body)
	var typeErr *json.UnmarshalTypeError
	assert.ErrorAs(t, err, &typeErr, "the value's own decoding error")
}

func ExamplePageBounds() {
	limit := 50
	l, o, err := apitype.PageBounds(&limit, nil)
	fmt.Println(l, o, err)
	offset := -1
	_, _, err = apitype.PageBounds(nil, &offset)
	fmt.Println(err)
	// Output:
	// 50 0 <nil>
	// VALIDATION_ERROR: offset: must be 0 or more
}
