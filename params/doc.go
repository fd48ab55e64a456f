// Package params owns Hoplink's query-parameter rules: the LinkParamConfig
// of SPEC.md (LinkConfig) and an organization's defaults (OrgConfig), their
// strict JSON decoding and validation, merging the two (Merge), and applying
// the merged config, a link's UTM fields and the visitor's query to a target
// URL (Apply). The redirect and the SDK resolve both call Apply, for the web
// destination and for every platform URL, so a tap and a resolve of the
// same link give the same URL. CustomParams gives the SDK resolve's
// `custom_params`; UTMFromURL, UTMFromQuery and ClickUTM give the UTM values
// a click records, and ApplyForClick gives them with Apply's result.
//
// The package is pure: it imports the standard library and errcode only,
// does no I/O, reads no clock and draws no randomness. It must not import
// store, httpapi, bun, bunrouter, fx or net/http.
//
// # Decoding and validation
//
// LinkConfig.UnmarshalJSON is strict: a required key that is missing
// ("parameters.injected[2].mode": "is required") is told apart from an
// explicit null, a wrong type or an unknown key is an error, and every
// problem found is listed in one VALIDATION_ERROR. Validate then checks the
// limits: keys 1 to MaxKeyLength characters and not blank, values up to
// MaxValueLength, no key twice, modes "always", "default" or null, no blank
// allowlist or suppressedOrgKeys entry; more than MaxInjected injected
// parameters or a serialized config over MaxConfigBytes is
// PARAM_CONFIG_TOO_LARGE. DecodeLinkConfig does both.
//
// # Merging
//
// Merge(org, link) gives the Effective config: the link's injected params
// win over the organization's on the same key; inheritOrgInjected false
// drops the organization's, suppressedOrgKeys drops some of them; a null
// mode takes the link's defaultMode, else the organization's, else
// "default"; a null forwarding takes the organization's, else the default
// forwarding, which passes exactly utm_source, utm_medium, utm_campaign,
// utm_term and utm_content. A nil link config means the organization's
// defaults.
//
// # Precedence
//
// For every key, Apply picks one value (SPEC.md, UTM rules 1 to 3, which
// Hoplink applies to every key and not only to the three UTM fields):
//
//  1. an injected param in always mode, over everything, even the visitor;
//  2. otherwise the first that has a value:
//     a. the visitor's value, when forwarding passes the key;
//     b. a value already in the target URL;
//     c. an injected param in default mode (so the link field is not used);
//     d. for utm_source, utm_medium and utm_campaign, the link's field.
//
// An empty or blank value (a link field, an injected value, a visitor value,
// a target value) counts as no value: it adds nothing and hides nothing. A
// key that Apply sets appears once in the result. UTM keys (any key that
// starts with "utm_") are added or changed only on http and https targets
// that are not app-store pages (apps.apple.com, itunes.apple.com,
// play.google.com and Options.StoreHosts); other keys are applied to every
// target, custom schemes included, because a deep link's app reads them.
// Everything Apply does not set keeps its exact bytes, and new keys are
// appended in a fixed order: injected params in Effective order, then the
// link's UTM fields, then forwarded visitor keys in the visitor's order.
// Applying the result again with the same inputs changes nothing.
//
// # A worked example
//
// The organization injects ref=hoplink with a null mode. The link injects
// utm_content=spring-banner in always mode and lang=en with a null mode,
// sets defaultMode "default", and has the fields utm_source=newsletter,
// utm_medium=email and utm_campaign=spring. Its destination is
//
//	https://shop.example/p?id=42&utm_medium=web&lang=fr#reviews
//
// and the visitor taps the short URL with
// ?utm_source=twitter&utm_content=mine&utm_id=7&foo=bar. Merge gives
// ref=hoplink (default), utm_content=spring-banner (always) and lang=en
// (default), with the default forwarding. Apply then decides:
//
//	id            untouched: nothing sets it
//	utm_medium    web: the destination's value (2b) beats the link field (2d)
//	lang          fr: the destination's value (2b) beats default-mode injection (2c)
//	ref           hoplink: default-mode injection (2c), appended
//	utm_content   spring-banner: always mode (1) beats the visitor's "mine"
//	utm_source    twitter: the forwarded visitor value (2a) beats the link field
//	utm_campaign  spring: the link field (2d), appended
//	utm_id, foo   not forwarded: the default forwarding passes neither
//
// and the visitor is sent to
//
//	https://shop.example/p?id=42&utm_medium=web&lang=fr&ref=hoplink&utm_content=spring-banner&utm_source=twitter&utm_campaign=spring#reviews
//
// For the same link on https://play.google.com/store/apps/details?id=com.example.shop
// no UTM key is touched, and the result is
// https://play.google.com/store/apps/details?id=com.example.shop&ref=hoplink&lang=en.
package params
