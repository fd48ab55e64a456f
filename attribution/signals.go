package attribution

import (
	"strconv"
	"strings"

	"github.com/hoplink/hoplink/linking"
)

// Signals are the device traits the scorer compares between an install and
// a click. "" and nil mean unknown; an unknown signal on either side
// neither helps nor hurts.
type Signals struct {
	// OSVersion is dotted ("17.5"); only major and minor are compared.
	OSVersion string
	// Model is the device model ("iPhone", "Pixel 8", "SM-S918B").
	Model string
	// Language is the first Accept-Language tag, lower case ("en-us").
	Language string
	// TimezoneOffset is minutes from UTC.
	TimezoneOffset *int
	// ScreenWidth and ScreenHeight are pixels; compared as an unordered
	// pair, so rotation does not matter.
	ScreenWidth, ScreenHeight *int
}

// Usable reports whether s holds a signal a stored click can be compared
// on: OS version, model or language. Timezone and screen do not count:
// stored clicks carry neither (ClickSignals), so an install with nothing
// else would be scored on its IP address and time alone, which no_signals
// refuses.
func (s Signals) Usable() bool {
	return s.OSVersion != "" || s.Model != "" || s.Language != ""
}

// RequestSignals reads the signals of a match request: OS version and model
// from its user_agent (which SDKs should set to the platform web view's
// agent), language from accept_language, and the timezone and screen as
// sent. A screen of 0 by 0 is unknown.
func RequestSignals(r *MatchRequest) Signals {
	d := linking.ClassifyDevice(r.UserAgent)
	s := Signals{Language: PrimaryLanguage(r.AcceptLanguage), TimezoneOffset: r.TimezoneOffset}
	if string(d.Platform) == string(r.Platform) {
		s.OSVersion, s.Model = unfrozen(string(r.Platform), d.OSVersion, d.Model), d.Model
	}
	if r.ScreenWidth != nil && r.ScreenHeight != nil && (*r.ScreenWidth > 0 || *r.ScreenHeight > 0) {
		s.ScreenWidth, s.ScreenHeight = r.ScreenWidth, r.ScreenHeight
	}
	return s
}

// ClickSignals reads the signals of a click. Hoplink's stored clicks carry
// no timezone or screen; a click given to the pure scorer by a store that
// captures them does (a screen of 0 by 0 is unknown, as in a request).
func ClickSignals(c *Click) Signals {
	s := Signals{OSVersion: c.OSVersion, Model: c.DeviceModel, Language: PrimaryLanguage(c.AcceptLanguage),
		TimezoneOffset: c.TimezoneOffset}
	s.OSVersion = unfrozen(c.Platform, s.OSVersion, s.Model)
	if c.ScreenWidth != nil && c.ScreenHeight != nil && (*c.ScreenWidth > 0 || *c.ScreenHeight > 0) {
		s.ScreenWidth, s.ScreenHeight = c.ScreenWidth, c.ScreenHeight
	}
	return s
}

// unfrozen returns "" for the Android version of a reduced user agent
// ("Linux; Android 10; K"), which every Chrome sends whatever the device's
// system: it says nothing about the device.
func unfrozen(platform, osVersion, model string) string {
	if platform == string(PlatformAndroid) && model == "" && osKey(osVersion) == "10.0" {
		return ""
	}
	return osVersion
}

// DeviceKey is what tells one clicking device from another behind an IP key:
// its user agent and Accept-Language. Two devices of one model, system and
// language share a key; sessions (SessionsOf) still tell them apart by time.
func DeviceKey(c *Click) string { return c.UserAgent + "\x00" + c.AcceptLanguage }

// PrimaryLanguage returns the first language tag of an Accept-Language value
// in lower case, without its quality ("fr-CA,fr;q=0.9" gives "fr-ca"), or ""
// for "*" and empty values.
func PrimaryLanguage(acceptLanguage string) string {
	tag := acceptLanguage
	if i := strings.IndexByte(tag, ','); i >= 0 {
		tag = tag[:i]
	}
	if i := strings.IndexByte(tag, ';'); i >= 0 {
		tag = tag[:i]
	}
	tag = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(tag, "_", "-")))
	if tag == "*" {
		return ""
	}
	return tag
}

// languageBase returns the language subtag of a tag ("fr" of "fr-ca").
func languageBase(tag string) string {
	if i := strings.IndexByte(tag, '-'); i >= 0 {
		return tag[:i]
	}
	return tag
}

// CompareOSVersions compares the major and minor parts of two dotted
// versions: -1 when a is older, 0 when equal, +1 when newer. A missing
// minor counts as 0; a part that is not a number compares as 0. ok is false
// when either version is empty or has no numeric major part.
func CompareOSVersions(a, b string) (cmp int, ok bool) {
	am, an, aok := majorMinor(a)
	bm, bn, bok := majorMinor(b)
	if !aok || !bok {
		return 0, false
	}
	switch {
	case am != bm:
		return sign(am - bm), true
	default:
		return sign(an - bn), true
	}
}

func majorMinor(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(strings.ReplaceAll(v, "_", "."), ".", 3)
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, false
	}
	if len(parts) > 1 {
		minor, _ = strconv.Atoi(parts[1])
	}
	return major, minor, true
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// genericModels are model names that every device of a kind sends; they
// tell an iPhone from an iPad but not one iPhone from another.
var genericModels = map[string]bool{"iphone": true, "ipad": true, "ipod": true}

// IsGenericModel reports whether model names a kind of device rather than
// a model ("iPhone", "iPad").
func IsGenericModel(model string) bool { return genericModels[strings.ToLower(model)] }

func lower(s string) string { return strings.ToLower(s) }

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }

func itoa(n int) string { return strconv.Itoa(n) }
