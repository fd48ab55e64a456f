package attribution

import (
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/errcode"
)

// Platform is the device platform of a match request.
type Platform string

// The platforms of a match request (SPEC.md, POST /attribution/match).
const (
	PlatformIOS     Platform = "ios"
	PlatformAndroid Platform = "android"
)

// Valid reports whether p is ios or android.
func (p Platform) Valid() bool { return p == PlatformIOS || p == PlatformAndroid }

// FingerprintVersion says how the SDK computed its fingerprint.
type FingerprintVersion string

// The fingerprint versions of a match request.
const (
	FingerprintBasic    FingerprintVersion = "basic"
	FingerprintEnriched FingerprintVersion = "enriched"
)

// Valid reports whether v is basic or enriched.
func (v FingerprintVersion) Valid() bool { return v == FingerprintBasic || v == FingerprintEnriched }

// Length limits of the match request's text fields, in bytes. SPEC.md sets
// none; these are ours (README, attribution).
const (
	MaxSDKVersion     = 64
	MaxReferrer       = 2048
	MaxAcceptLanguage = 256
	MaxUserAgent      = 512
)

// Bounds of the match request's numeric fields. SPEC.md sets the screen's
// minimum (0); the maxima are ours.
const (
	// MaxScreenDimension bounds screen_width and screen_height, in pixels.
	MaxScreenDimension = 100_000
	// MaxTimezoneOffset bounds timezone_offset's absolute value, in
	// minutes (UTC-14 to UTC+14 is ±840; a day either way is accepted
	// whichever sign convention the SDK uses).
	MaxTimezoneOffset = 1440
)

// MatchRequest is the body of POST /v1/attribution/match as decoded. Its
// JSON tags are the body's field names, so an adapter can decode strictly
// into it and then call Validate. Absent optional strings are "", absent
// integers nil.
type MatchRequest struct {
	Platform           Platform           `json:"platform"`
	FingerprintVersion FingerprintVersion `json:"fingerprint_version"`
	SDKVersion         string             `json:"sdk_version"`
	// Fingerprint is the SDK's SHA-256 of device traits: 64 lowercase hex
	// characters. Only replay uses it.
	Fingerprint string `json:"fingerprint,omitempty"`
	// DeviceID is the iOS vendor identifier or its Android equivalent, a
	// UUID in its 36-character form (either case; stored lower case).
	DeviceID string `json:"device_id,omitempty"`
	// Referrer is the Android install referrer, as Google Play returns it.
	Referrer       string `json:"referrer,omitempty"`
	AcceptLanguage string `json:"accept_language,omitempty"`
	ScreenWidth    *int   `json:"screen_width,omitempty"`
	ScreenHeight   *int   `json:"screen_height,omitempty"`
	// TimezoneOffset is the device's offset from UTC in minutes.
	TimezoneOffset *int   `json:"timezone_offset,omitempty"`
	UserAgent      string `json:"user_agent,omitempty"`
}

// Validate checks the field rules of SPEC.md (platform and
// fingerprint_version enums, sdk_version required, fingerprint 64
// lowercase hex, device_id a UUID, screen dimensions at least 0) and ours
// (the Max* limits, text that is valid UTF-8 without NUL). It returns one
// VALIDATION_ERROR naming every bad field, or nil. Types and unknown fields
// are the decoder's job.
func (r *MatchRequest) Validate() error {
	var fields []errcode.FieldError
	bad := func(field, msg string) { fields = append(fields, errcode.FieldError{Field: field, Message: msg}) }
	switch {
	case r.Platform == "":
		bad("platform", "is required")
	case !r.Platform.Valid():
		bad("platform", "must be ios or android")
	}
	switch {
	case r.FingerprintVersion == "":
		bad("fingerprint_version", "is required")
	case !r.FingerprintVersion.Valid():
		bad("fingerprint_version", "must be basic or enriched")
	}
	if r.SDKVersion == "" {
		bad("sdk_version", "is required")
	} else if msg := checkText(r.SDKVersion, MaxSDKVersion); msg != "" {
		bad("sdk_version", msg)
	}
	if r.Fingerprint != "" && !ValidFingerprint(r.Fingerprint) {
		bad("fingerprint", "must be 64 lowercase hexadecimal characters")
	}
	if r.DeviceID != "" && !ValidDeviceID(r.DeviceID) {
		bad("device_id", "must be a UUID")
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{
		{"referrer", r.Referrer, MaxReferrer},
		{"accept_language", r.AcceptLanguage, MaxAcceptLanguage},
		{"user_agent", r.UserAgent, MaxUserAgent},
	} {
		if msg := checkText(f.value, f.max); msg != "" {
			bad(f.name, msg)
		}
	}
	for _, f := range []struct {
		name  string
		value *int
	}{{"screen_width", r.ScreenWidth}, {"screen_height", r.ScreenHeight}} {
		if f.value != nil && (*f.value < 0 || *f.value > MaxScreenDimension) {
			bad(f.name, "must be 0 to "+strconv.Itoa(MaxScreenDimension))
		}
	}
	if r.TimezoneOffset != nil && (*r.TimezoneOffset < -MaxTimezoneOffset || *r.TimezoneOffset > MaxTimezoneOffset) {
		bad("timezone_offset", "must be -1440 to 1440 minutes")
	}
	if len(fields) > 0 {
		return errcode.Validation(fields...)
	}
	return nil
}

// checkText returns why s is not acceptable text of at most max bytes, or "".
func checkText(s string, max int) string {
	switch {
	case len(s) > max:
		return "must be at most " + strconv.Itoa(max) + " bytes"
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return "must not contain NUL"
		}
	}
	return ""
}

// ValidFingerprint reports whether s is 64 lowercase hexadecimal characters
// (a SHA-256 digest).
func ValidFingerprint(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidDeviceID reports whether s is a UUID in its 36-character form.
func ValidDeviceID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}
