package attribution_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/errcode"
)

func TestMatchRequestValidate(t *testing.T) {
	neg, big, tz := -1, 100_001, 1441
	cases := []struct {
		name   string
		mutate func(r *attribution.MatchRequest)
		fields []string
	}{
		{"a full valid request passes", func(r *attribution.MatchRequest) {}, nil},
		{"platform is required", func(r *attribution.MatchRequest) { r.Platform = "" }, []string{"platform"}},
		{"platform is ios or android", func(r *attribution.MatchRequest) { r.Platform = "web" }, []string{"platform"}},
		{"fingerprint_version is required", func(r *attribution.MatchRequest) { r.FingerprintVersion = "" }, []string{"fingerprint_version"}},
		{"fingerprint_version is basic or enriched", func(r *attribution.MatchRequest) { r.FingerprintVersion = "full" }, []string{"fingerprint_version"}},
		{"sdk_version is required", func(r *attribution.MatchRequest) { r.SDKVersion = "" }, []string{"sdk_version"}},
		{"sdk_version at most 64 bytes", func(r *attribution.MatchRequest) { r.SDKVersion = strings.Repeat("1", 65) }, []string{"sdk_version"}},
		{"fingerprint is lowercase hex", func(r *attribution.MatchRequest) { r.Fingerprint = strings.ToUpper(r.Fingerprint) }, []string{"fingerprint"}},
		{"fingerprint is 64 characters", func(r *attribution.MatchRequest) { r.Fingerprint = r.Fingerprint[:63] }, []string{"fingerprint"}},
		{"device_id is a UUID", func(r *attribution.MatchRequest) { r.DeviceID = "not-a-uuid" }, []string{"device_id"}},
		{"device_id in its 36-character form", func(r *attribution.MatchRequest) { r.DeviceID = strings.ReplaceAll(r.DeviceID, "-", "") }, []string{"device_id"}},
		{"screen_width min 0", func(r *attribution.MatchRequest) { r.ScreenWidth = &neg }, []string{"screen_width"}},
		{"screen_height bounded", func(r *attribution.MatchRequest) { r.ScreenHeight = &big }, []string{"screen_height"}},
		{"timezone_offset bounded", func(r *attribution.MatchRequest) { r.TimezoneOffset = &tz }, []string{"timezone_offset"}},
		{"user_agent at most 512 bytes", func(r *attribution.MatchRequest) { r.UserAgent = strings.Repeat("a", 513) }, []string{"user_agent"}},
		{"referrer without NUL", func(r *attribution.MatchRequest) { r.Referrer = "a\x00b" }, []string{"referrer"}},
		{"accept_language valid UTF-8", func(r *attribution.MatchRequest) { r.AcceptLanguage = "\xff" }, []string{"accept_language"}},
		{"every bad field is named", func(r *attribution.MatchRequest) { r.Platform, r.SDKVersion = "", "" }, []string{"platform", "sdk_version"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zero, w := 0, 390
			r := attribution.MatchRequest{
				Platform: "ios", FingerprintVersion: "enriched", SDKVersion: "2.0.1",
				Fingerprint: strings.Repeat("ab", 32), DeviceID: "3F2504E0-4F89-41D3-9A0C-0305E82C3301",
				Referrer: "utm_source=x", AcceptLanguage: "en-US", ScreenWidth: &w, ScreenHeight: &zero,
				TimezoneOffset: &zero, UserAgent: "ua",
			}
			tc.mutate(&r)
			err := r.Validate()
			if tc.fields == nil {
				require.NoError(t, err)
				return
			}
			e, ok := errcode.As(err)
			require.True(t, ok)
			assert.Equal(t, errcode.ValidationError, e.Code)
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			assert.Equal(t, tc.fields, got)
		})
	}
}
