package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/clientip"
	"github.com/hoplink/hoplink/identity"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/ratelimit"
	"github.com/hoplink/hoplink/secretkey"
	"github.com/hoplink/hoplink/web"
)

// Password-protected links (SPEC.md, Redirect behaviour on link domains).
const (
	// PasswordCookieName is the cookie that remembers a correct link
	// password. Each protected link's cookie has the path /{slug}, so the
	// links of one domain never see each other's.
	PasswordCookieName = "hop_pw"
	// PasswordCookieMaxAge is how long a correct password is remembered.
	PasswordCookieMaxAge = time.Hour
	// PasswordCSRFField is the password form's CSRF token field.
	PasswordCSRFField = "csrf_token"
	// PasswordCSRFMaxAge is how long a password form's token is accepted.
	PasswordCSRFMaxAge = time.Hour
	// passwordFormMaxBytes bounds the body of a password form POST.
	passwordFormMaxBytes = 4 << 10
	// csrfClockSkew is how far in the future a token's issue time may lie,
	// for replicas whose clocks differ a little.
	csrfClockSkew = time.Minute
)

// DefaultPasswordRule limits password attempts: 10 per client IP and link in
// a 15-minute window. Windows are aligned to the clock (ratelimit package
// documentation), so a client may make up to 20 attempts around a window's
// end, and one address may try at most about 1,000 passwords a day per link.
// Every POST of a protected link's form counts, right or wrong.
var DefaultPasswordRule = ratelimit.Rule{Limit: 10, Window: 15 * time.Minute}

// DefaultLinkLockout limits wrong passwords per link across every address,
// in addition to DefaultPasswordRule per client network: after 20 wrong
// passwords every visitor of the link waits 10 minutes, each further wrong
// password doubles the wait up to 6 hours, and the count is forgotten a
// day after the last wrong password. A guesser spread over many networks
// thus gets about 20 guesses, then a handful a day. The count belongs to
// the link's current password, so an owner who sets a new one starts a
// new count.
var DefaultLinkLockout = ratelimit.LockoutRule{Threshold: 20, Base: 10 * time.Minute, Max: 6 * time.Hour, Forget: 24 * time.Hour}

// passwordGate holds what the password flow needs: keys derived from the
// server secret, the attempt limiter and the password check.
type passwordGate struct {
	csrfKey, cookieKey []byte
	limiter            ratelimit.Limiter
	rule               ratelimit.Rule
	lockout            ratelimit.Lockout
	verify             func(hash, password string) (bool, error)
	// verifying bounds the argon2id checks running at once: each one takes
	// tens of megabytes of memory on purpose.
	verifying chan struct{}
}

func newPasswordGate(opts LinkDomainOptions, clock func() time.Time) passwordGate {
	secret := opts.Secret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret) // crypto/rand.Read never fails (Go 1.24)
	}
	g := passwordGate{
		csrfKey:   secretkey.Derive(secret, "hoplink link password csrf v1"),
		cookieKey: secretkey.Derive(secret, "hoplink link password cookie v1"),
		limiter:   opts.Limiter,
		rule:      opts.PasswordRule,
		lockout:   opts.PasswordLockout,
		verify:    opts.VerifyPassword,
		verifying: make(chan struct{}, max(2, runtime.GOMAXPROCS(0))),
	}
	if g.limiter == nil {
		g.limiter = ratelimit.NewMemory(ratelimit.MemoryOptions{Clock: clock})
	}
	if g.lockout == nil {
		g.lockout = ratelimit.NewMemoryLockout(func(string) ratelimit.LockoutRule { return DefaultLinkLockout })
	}
	if g.rule == (ratelimit.Rule{}) {
		g.rule = DefaultPasswordRule
	}
	if g.verify == nil {
		g.verify = identity.VerifyPassword
	}
	return g
}

// Messages of the password form.
const (
	msgWrongPassword = "That password is not correct."
	msgBadToken      = "This form has expired or did not come from this page. Please enter the password again."
	msgBadForm       = "The form could not be read. Please enter the password again."
	msgUnavailable   = "The password could not be checked. Please try again."
)

// protected answers a password-protected link (res) at slug on host:
//
//   - GET or HEAD with a valid cookie for this link and its current password
//     redirects as an unprotected link does; otherwise the form, 200.
//   - POST counts an attempt for the client network and link (past the
//     limit: the form, 429 with Retry-After), refuses it the same way while
//     the link is locked after too many wrong passwords from anywhere
//     (DefaultLinkLockout), then checks the CSRF token (missing, forged or
//     expired: the form, 403) and the password (wrong: the form, 401, and
//     one more failure of the link). A correct password sets the cookie and redirects: the routing
//     and params path of every redirect, OnRedirect called once.
//
// Bots always get the form and nothing else: the password is never checked
// for them and nothing is recorded. The form and a refused attempt record
// nothing either.
func (h *LinkDomain) protected(w http.ResponseWriter, r *http.Request, host, slug string, res *linking.Resolved) {
	device := h.devices.Classify(r.UserAgent())
	domain := linking.NormalizeDomain(host)
	if r.Method != http.MethodPost {
		if !device.IsBot && h.pw.validCookie(r, res.Link, h.clock()) {
			h.redirect(w, r, host, res, device)
			return
		}
		h.showPasswordForm(w, r, http.StatusOK, domain, slug, "")
		return
	}
	if device.IsBot {
		h.showPasswordForm(w, r, http.StatusOK, domain, slug, "")
		return
	}

	ip := clientip.FromRequest(r, h.opts.TrustedProxies)
	if ok, retry := h.allowAttempt(r.Context(), res.Link.ID, ip); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		h.showPasswordForm(w, r, http.StatusTooManyRequests, domain, slug, tooManyAttempts(retry))
		return
	}

	lockKey := linkLockKey(res.Link)
	if wait := h.pw.lockout.Wait(lockKey, h.clock()); wait > 0 {
		// The right password waits too, so that a refusal says nothing
		// about the password.
		retry := ratelimit.Result{RetryAfter: wait}.RetryAfterSeconds()
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		h.showPasswordForm(w, r, http.StatusTooManyRequests, domain, slug, tooManyAttempts(retry))
		return
	}

	r.Body = http.MaxBytesReader(w, r.Body, passwordFormMaxBytes)
	if err := r.ParseForm(); err != nil {
		h.showPasswordForm(w, r, http.StatusBadRequest, domain, slug, msgBadForm)
		return
	}
	now := h.clock()
	if !h.pw.validToken(r.PostForm.Get(PasswordCSRFField), domain, slug, now) {
		h.showPasswordForm(w, r, http.StatusForbidden, domain, slug, msgBadToken)
		return
	}
	ok, err := h.pw.check(r.Context(), *res.Link.PasswordHash, r.PostForm.Get("password"))
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			h.log.ErrorContext(r.Context(), "checking a link password", "link_id", res.Link.ID, "err", err)
		}
		h.showPasswordForm(w, r, http.StatusInternalServerError, domain, slug, msgUnavailable)
		return
	}
	if !ok {
		h.pw.lockout.Fail(lockKey, h.clock())
		h.showPasswordForm(w, r, http.StatusUnauthorized, domain, slug, msgWrongPassword)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     PasswordCookieName,
		Value:    h.pw.cookieValue(res.Link, now.Add(PasswordCookieMaxAge)),
		Path:     "/" + slug,
		MaxAge:   int(PasswordCookieMaxAge / time.Second),
		HttpOnly: true,
		Secure:   h.isHTTPS(r),
		SameSite: http.SameSiteLaxMode,
	})
	h.redirect(w, r, host, res, device)
}

// showPasswordForm writes the password form with a fresh CSRF token.
func (h *LinkDomain) showPasswordForm(w http.ResponseWriter, r *http.Request, status int, domain, slug, msg string) {
	h.outcome(OutcomePassword)
	action := "/" + slug
	if r.URL.RawQuery != "" {
		action += "?" + r.URL.RawQuery
	}
	token, err := h.pw.newToken(domain, slug, h.clock())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The security headers are set for every response (securityHeaders);
	// the form's page alone sends no referrer.
	w.Header().Set("Referrer-Policy", "no-referrer")
	h.page(w, r, status, web.PagePassword, web.PasswordView{Frame: web.Frame{Error: msg}, Action: action, Token: token})
}

// allowAttempt counts one password attempt for link from ip. It returns
// false and the seconds to wait when the attempts are spent. A limiter that
// fails lets the attempt through (and logs), as the API does: argon2id
// keeps guessing slow even then.
func (h *LinkDomain) allowAttempt(ctx context.Context, link uuid.UUID, ip netip.Addr) (bool, int) {
	res, err := h.pw.limiter.Allow(ctx, "linkpw:"+link.String()+":"+clientip.Key(ip), h.pw.rule)
	if err != nil {
		h.log.WarnContext(ctx, "rate limiter failed; letting the password attempt through", "err", err)
		return true, 0
	}
	return res.Allowed, res.RetryAfterSeconds()
}

// linkLockKey is the key of link l's wrong passwords in the lockout: the
// link and a fingerprint of its password hash, so that a new password
// starts a new count.
func linkLockKey(l *linking.Link) string {
	fp := sha256.Sum256([]byte(*l.PasswordHash))
	return "link-password:" + l.ID.String() + ":" + hex.EncodeToString(fp[:8])
}

func tooManyAttempts(retry int) string {
	wait := "in a minute"
	if minutes := (retry + 59) / 60; minutes > 1 {
		wait = "in " + strconv.Itoa(minutes) + " minutes"
	}
	return "Too many attempts. Please try again " + wait + "."
}

// isHTTPS reports whether r came over HTTPS: TLS on this connection, or
// X-Forwarded-Proto https set by a trusted proxy.
func (h *LinkDomain) isHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	proto := r.Header.Values("X-Forwarded-Proto")
	if len(proto) == 0 || len(h.opts.TrustedProxies) == 0 {
		return false
	}
	if !clientip.PeerTrusted(r.RemoteAddr, h.opts.TrustedProxies) {
		return false
	}
	// The proxy next to us appends last.
	last := proto[len(proto)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// check verifies password against hash, running at most a few argon2id
// checks at once. argon2id takes the same time for a right and a wrong
// password, and its result is compared in constant time.
func (g *passwordGate) check(ctx context.Context, hash, password string) (bool, error) {
	select {
	case g.verifying <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-g.verifying }()
	return g.verify(hash, password)
}

// CSRF tokens: base64url of issue time (8 bytes, Unix seconds), nonce (16
// random bytes) and HMAC-SHA256 under csrfKey of domain, slug, issue time
// and nonce. A token is good for one link for PasswordCSRFMaxAge.
const (
	csrfNonceLen = 16
	csrfLen      = 8 + csrfNonceLen + sha256.Size
)

func (g *passwordGate) newToken(domain, slug string, now time.Time) (string, error) {
	b := make([]byte, 8+csrfNonceLen, csrfLen)
	binary.BigEndian.PutUint64(b, uint64(now.Unix()))
	if _, err := rand.Read(b[8:]); err != nil {
		return "", err
	}
	b = append(b, g.tokenMAC(domain, slug, b[:8+csrfNonceLen])...)
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (g *passwordGate) validToken(token, domain, slug string, now time.Time) bool {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != csrfLen {
		return false
	}
	body, mac := b[:8+csrfNonceLen], b[8+csrfNonceLen:]
	if !hmac.Equal(mac, g.tokenMAC(domain, slug, body)) {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(body)), 0)
	age := now.Sub(issued)
	return age >= -csrfClockSkew && age < PasswordCSRFMaxAge
}

func (g *passwordGate) tokenMAC(domain, slug string, body []byte) []byte {
	m := hmac.New(sha256.New, g.csrfKey)
	writeField(m, domain)
	writeField(m, slug)
	m.Write(body)
	return m.Sum(nil)
}

// Cookies: "{expiry Unix seconds}.{base64url MAC}", the MAC being
// HMAC-SHA256 under cookieKey of the link id, the SHA-256 fingerprint of
// the link's password hash and the expiry. A cookie thus opens one link
// only, and no longer once its password changes (the hash has a new salt
// even when the password is set to the same value again).
func (g *passwordGate) cookieValue(l *linking.Link, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return exp + "." + base64.RawURLEncoding.EncodeToString(g.cookieMAC(l, exp))
}

func (g *passwordGate) validCookie(r *http.Request, l *linking.Link, now time.Time) bool {
	for _, c := range r.CookiesNamed(PasswordCookieName) {
		exp, mac, ok := strings.Cut(c.Value, ".")
		if !ok {
			continue
		}
		sec, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || !now.Before(time.Unix(sec, 0)) {
			continue
		}
		got, err := base64.RawURLEncoding.DecodeString(mac)
		if err == nil && hmac.Equal(got, g.cookieMAC(l, exp)) {
			return true
		}
	}
	return false
}

func (g *passwordGate) cookieMAC(l *linking.Link, exp string) []byte {
	fp := sha256.Sum256([]byte(*l.PasswordHash))
	m := hmac.New(sha256.New, g.cookieKey)
	m.Write(l.ID[:])
	m.Write(fp[:])
	writeField(m, exp)
	return m.Sum(nil)
}

// writeField writes s with its length first, so that fields cannot run
// into each other.
func writeField(w interface{ Write([]byte) (int, error) }, s string) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(s)))
	_, _ = w.Write(n[:])
	_, _ = w.Write([]byte(s))
}
