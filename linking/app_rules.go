package linking

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hoplink/hoplink/errcode"
)

// The fields of an app, as their errors name them (SPEC.md, App).
const (
	FieldAppName                   = "name"
	FieldIOSBundleID               = "ios_bundle_id"
	FieldIOSTeamID                 = "ios_team_id"
	FieldIOSAppStoreID             = "ios_app_store_id"
	FieldIOSAppStoreURL            = "ios_app_store_url"
	FieldIOSUniversalLinkPaths     = "ios_universal_link_paths"
	FieldAndroidPackageName        = "android_package_name"
	FieldAndroidSHA256Fingerprints = "android_sha256_fingerprints"
	FieldAndroidPlayStoreURL       = "android_play_store_url"
	FieldAndroidAppLinksPaths      = "android_app_links_paths"
)

// Limits of an app's fields (SPEC.md gives the name's; the others are ours).
const (
	// MaxAppNameLength is the longest app name, in characters (SPEC.md, Limits).
	MaxAppNameLength = 255
	// MaxBundleIDLength is the longest iOS bundle id: App Store Connect's limit.
	MaxBundleIDLength = 155
	// TeamIDLength is the length of an iOS team id.
	TeamIDLength = 10
	// MaxAppStoreIDLength is the most digits of an App Store id.
	MaxAppStoreIDLength = 20
	// MaxPackageNameLength is the longest Android package name.
	MaxPackageNameLength = 255
	// MaxFingerprints is the most SHA-256 certificate fingerprints an app
	// may list (an upload key, the app signing key and a few more).
	MaxFingerprints = 20
	// MaxAppPaths is the most items of a path list
	// (ios_universal_link_paths, android_app_links_paths).
	MaxAppPaths = 50
	// MaxAppPathLength is the longest item of a path list, in characters.
	MaxAppPathLength = 255
)

// Handle limits: a handle is a DNS label of lowercase letters, digits and
// single hyphens, neither starting nor ending with a hyphen.
const (
	MinHandleLength = 3
	MaxHandleLength = 40
	// maxHandleBase leaves room for "-" and a GeneratedSlugLength suffix.
	maxHandleBase = MaxHandleLength - 1 - GeneratedSlugLength
)

// reservedHandles are host names that no app subdomain may take besides the
// reserved slugs: the default CNAME target of custom domains
// (cname.{default_link_domain}) and names that mail, DNS and service
// discovery look up.
var reservedHandles = map[string]bool{
	"autoconfig": true, "autodiscover": true, "cname": true, "imap": true, "localhost": true,
	"mail": true, "mx": true, "ns1": true, "ns2": true, "pop": true, "smtp": true,
}

// ValidateAppName checks an app's name: 1 to MaxAppNameLength characters, not
// blank, valid UTF-8, one line without control characters. It is stored as sent.
func ValidateAppName(name string) error {
	return validateText(FieldAppName, name, MaxAppNameLength, false)
}

// ValidateBundleID checks an iOS bundle id: reverse-domain notation, two or
// more dot-separated segments of ASCII letters, digits and hyphens (the
// characters Apple allows), at most MaxBundleIDLength characters. Case is
// kept as sent; uniqueness within an organization compares it exactly.
func ValidateBundleID(id string) error {
	if msg := dottedProblem(id, MaxBundleIDLength, func(r rune, _ bool) bool {
		return isASCIIAlnum(r) || r == '-'
	}); msg != "" {
		return errcode.Field(FieldIOSBundleID, msg+" (reverse-domain notation such as com.example.app: letters, digits and hyphens)")
	}
	return nil
}

// ValidateTeamID checks an iOS team id: exactly TeamIDLength uppercase ASCII
// letters and digits.
func ValidateTeamID(id string) error {
	ok := len(id) == TeamIDLength
	for _, r := range id {
		ok = ok && (('A' <= r && r <= 'Z') || ('0' <= r && r <= '9'))
	}
	if !ok {
		return errcode.Field(FieldIOSTeamID, fmt.Sprintf("must be %d uppercase letters and digits", TeamIDLength))
	}
	return nil
}

// ValidateAppStoreID checks an App Store id: 1 to MaxAppStoreIDLength ASCII
// digits, as in apps.apple.com/app/id{digits} without the "id".
func ValidateAppStoreID(id string) error {
	ok := id != "" && len(id) <= MaxAppStoreIDLength
	for _, r := range id {
		ok = ok && '0' <= r && r <= '9'
	}
	if !ok {
		return errcode.Field(FieldIOSAppStoreID, fmt.Sprintf("must be numeric (1 to %d digits)", MaxAppStoreIDLength))
	}
	return nil
}

// ValidatePackageName checks an Android package name: a Java package name of
// two or more dot-separated segments, each starting with an ASCII letter and
// holding ASCII letters, digits and underscores, at most
// MaxPackageNameLength characters. Case is kept; uniqueness within an
// organization compares it exactly.
func ValidatePackageName(name string) error {
	if msg := dottedProblem(name, MaxPackageNameLength, func(r rune, first bool) bool {
		if first {
			return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		}
		return isASCIIAlnum(r) || r == '_'
	}); msg != "" {
		return errcode.Field(FieldAndroidPackageName, msg+" (a Java package name such as com.example.app: each segment starts with a letter, then letters, digits and underscores)")
	}
	return nil
}

// dottedProblem says what is wrong with s as two or more dot-separated,
// non-empty segments of runes that ok accepts (first says whether a rune
// starts its segment), at most max characters; "" when nothing is.
func dottedProblem(s string, max int, ok func(r rune, first bool) bool) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > max {
		return fmt.Sprintf("must be at most %d characters", max)
	}
	segments := strings.Split(s, ".")
	if len(segments) < 2 {
		return "must have at least two segments separated by dots"
	}
	for _, seg := range segments {
		if seg == "" {
			return "must not have an empty segment"
		}
		for i, r := range seg {
			if !ok(r, i == 0) {
				return fmt.Sprintf("has an invalid character %q", r)
			}
		}
	}
	return ""
}

func isASCIIAlnum(r rune) bool {
	return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// NormalizeFingerprints checks the SHA-256 certificate fingerprints of an
// Android app and returns them as stored: each 32 pairs of hex digits joined
// by colons (AA:BB:...:FF), uppercased; duplicates after uppercasing dropped,
// the first kept, order kept. Refused: more than MaxFingerprints items as
// sent, or an item of another shape. nil stays nil (null) and an empty list
// stays empty ([]).
func NormalizeFingerprints(fps []string) ([]string, error) {
	if fps == nil {
		return nil, nil
	}
	if len(fps) > MaxFingerprints {
		return nil, errcode.Field(FieldAndroidSHA256Fingerprints, fmt.Sprintf("must hold at most %d fingerprints", MaxFingerprints))
	}
	out := make([]string, 0, len(fps))
	for i, fp := range fps {
		if !isFingerprint(fp) {
			return nil, errcode.Field(fmt.Sprintf("%s[%d]", FieldAndroidSHA256Fingerprints, i),
				"must be a SHA-256 fingerprint: 32 pairs of hex digits joined by colons (AA:BB:...)")
		}
		fp = strings.ToUpper(fp)
		if !slices.Contains(out, fp) {
			out = append(out, fp)
		}
	}
	return out, nil
}

// isFingerprint reports whether s is 32 colon-separated pairs of hex digits.
func isFingerprint(s string) bool {
	if len(s) != 32*3-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i%3 == 2 {
			if s[i] != ':' {
				return false
			}
		} else if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// NormalizeAppPaths checks a path list of an app (field is
// ios_universal_link_paths or android_app_links_paths) and returns it as
// stored, duplicates dropped (the first kept, order kept). Each item is a
// path pattern that the association file lists as is: it starts with "/" or
// "*", holds 1 to MaxAppPathLength characters of valid UTF-8, and no
// whitespace or control characters. Refused: more than MaxAppPaths items as
// sent, or an item of another shape. nil stays nil (null) and an empty list
// stays empty ([]).
func NormalizeAppPaths(field string, paths []string) ([]string, error) {
	if paths == nil {
		return nil, nil
	}
	if len(paths) > MaxAppPaths {
		return nil, errcode.Field(field, fmt.Sprintf("must hold at most %d paths", MaxAppPaths))
	}
	out := make([]string, 0, len(paths))
	for i, p := range paths {
		if msg := pathProblem(p); msg != "" {
			return nil, errcode.Field(fmt.Sprintf("%s[%d]", field, i), msg)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

func pathProblem(p string) string {
	switch {
	case !utf8.ValidString(p):
		return "must be valid UTF-8"
	case p == "" || (p[0] != '/' && p[0] != '*'):
		return `must start with "/" or "*"`
	case len(p) > MaxAppPathLength && utf8.RuneCountInString(p) > MaxAppPathLength:
		return fmt.Sprintf("must be at most %d characters", MaxAppPathLength)
	case strings.IndexFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return "must not contain whitespace or control characters"
	}
	return ""
}

// HandleBase returns the handle an app named name asks for, before any
// suffix: the name lowered, with every run of characters other than ASCII
// letters and digits turned into one hyphen, hyphens trimmed from both ends,
// cut to leave room for a suffix (MaxHandleLength - 8 characters), and "app"
// when nothing is left. It may be shorter than MinHandleLength or reserved:
// see HandleCandidate.
func HandleBase(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if b.Len() >= maxHandleBase {
			break
		}
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	base := strings.TrimRight(b.String(), "-")
	if len(base) > maxHandleBase {
		base = strings.TrimRight(base[:maxHandleBase], "-")
	}
	if base == "" {
		return "app"
	}
	return base
}

// HandleCandidate returns the handle to try for base (see HandleBase):
// without a suffix, base itself when it is a usable handle (ValidHandle and
// not IsReservedHandle), else "" to ask for a suffix; with suffix (a
// generated slug, GenerateSlug), base + "-" + suffix.
func HandleCandidate(base, suffix string) string {
	if suffix == "" {
		if ValidHandle(base) && !IsReservedHandle(base) {
			return base
		}
		return ""
	}
	return base + "-" + suffix
}

// ValidHandle reports whether h has the shape of a handle: MinHandleLength to
// MaxHandleLength lowercase ASCII letters, digits and single hyphens, neither
// starting nor ending with a hyphen; so it is one DNS label and never an
// internationalised (xn--) one.
func ValidHandle(h string) bool {
	return len(h) >= MinHandleLength && len(h) <= MaxHandleLength && slugProblem(h, MinHandleLength) == ""
}

// IsReservedHandle reports whether h may not be an app's subdomain: a reserved
// slug (www, api, mcp, ...; IsReservedSlug), "test", or one of the host names
// of mail, DNS and the custom-domain CNAME target (cname, mail, mx, ns1, ...).
func IsReservedHandle(h string) bool {
	return IsReservedSlug(h, true) || reservedHandles[h]
}
