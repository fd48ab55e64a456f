package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/web"
)

// pageData fills the account pages' templates.
type pageData struct {
	Title  string
	Error  string
	Notice string
	CSRF   string

	ReturnTo string
	Email    string
	Pending  string

	TwoFactorEnabled  bool
	EnrolmentRequired bool
	Memberships       []account.Membership
	Sessions          []web.Session
	// Connections says that this server lists the user's OAuth
	// connections (GET /account/connections is one of its routes).
	Connections bool
	// APIDescription says that this server serves GET /v1/openapi.json.
	APIDescription bool
	// Dashboard says that this server serves GET /dashboard.
	Dashboard bool

	Secret string
	// URI is the otpauth URI, trusted as a link: account.TOTPURI escapes
	// the email it holds.
	URI         template.URL
	QR          template.URL
	BackupCodes []string

	// joined is the organization id of an invitation accepted just now
	// (the account page's joined parameter): its confirmation is shown.
	joined string

	// Invitation is the invitation of the acceptance page.
	Invitation *web.Invitation
}

// render writes the page name (a web page) with d.
func (p *accountPages) render(w http.ResponseWriter, r *http.Request, status int, name string, d pageData) {
	if err := web.Render(w, r, status, name, d.view()); err != nil {
		p.a.log.ErrorContext(r.Context(), "rendering an account page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// view returns d as the web package's view.
func (d pageData) view() web.AccountView {
	v := web.AccountView{
		Frame: web.Frame{Title: d.Title, Error: d.Error, Notice: d.Notice},
		CSRF:  d.CSRF, ReturnTo: d.ReturnTo, Email: d.Email, Pending: d.Pending,
		TwoFactorEnabled: d.TwoFactorEnabled, EnrolmentRequired: d.EnrolmentRequired,
		Sessions: d.Sessions, Connections: d.Connections, APIDescription: d.APIDescription, Dashboard: d.Dashboard,
		Secret: d.Secret, URI: d.URI, QR: d.QR, BackupCodes: d.BackupCodes,
		Invitation: d.Invitation,
	}
	for _, m := range d.Memberships {
		v.Memberships = append(v.Memberships, web.Membership{Name: m.OrgName, Role: string(m.Role)})
	}
	return v
}

// renderForm writes a page with forms: it gives the browser a CSRF cookie
// when it has none and binds the page's token to it.
func (p *accountPages) renderForm(w http.ResponseWriter, r *http.Request, status int, name string, d pageData) error {
	if err := p.withCSRF(w, r, func(token string) { d.CSRF = token }); err != nil {
		return err
	}
	p.render(w, r, status, name, d)
	return nil
}

// withCSRF gives the browser a CSRF cookie when it has none and passes set
// a form token bound to it.
func (p *accountPages) withCSRF(w http.ResponseWriter, r *http.Request, set func(token string)) error {
	secret := p.csrfSecret(r)
	if secret == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		secret = base64.RawURLEncoding.EncodeToString(b)
		http.SetCookie(w, &http.Cookie{
			Name: p.csrfCookie(), Value: secret, Path: "/",
			HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode,
		})
	}
	set(p.csrfToken(secret, p.clock()))
	return nil
}

// CSRF: every browser gets a random secret in an HttpOnly cookie, and every
// form a token: base64url of its issue time (8 bytes, Unix seconds) and
// HMAC-SHA256 under csrfKey of the secret and that time. A POST is accepted
// only with the token of the cookie it carries, younger than
// AccountCSRFMaxAge, and, when the browser says where it comes from
// (Origin, Sec-Fetch-Site), from this site. Binding to a cookie that other
// sites can neither read nor set (__Host- over HTTPS) also stops sign-in
// CSRF, where another site would sign a browser in as someone else.

func (p *accountPages) csrfSecret(r *http.Request) string {
	c, err := r.Cookie(p.csrfCookie())
	if err != nil || len(c.Value) != 43 {
		return ""
	}
	return c.Value
}

func (p *accountPages) csrfToken(secret string, now time.Time) string {
	b := make([]byte, 8, 8+sha256.Size)
	binary.BigEndian.PutUint64(b, uint64(now.Unix()))
	b = append(b, p.csrfMAC(secret, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (p *accountPages) csrfMAC(secret string, issued []byte) []byte {
	m := hmac.New(sha256.New, p.csrfKey)
	writeField(m, secret)
	m.Write(issued)
	return m.Sum(nil)
}

// validCSRF checks a parsed POST form's token against the browser's cookie
// and the request's origin.
func (p *accountPages) validCSRF(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || u.Host != r.Host && u.Host != p.publicHost {
			return false
		}
	}
	secret := p.csrfSecret(r)
	if secret == "" {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(r.PostForm.Get(AccountCSRFField))
	if err != nil || len(b) != 8+sha256.Size {
		return false
	}
	if !hmac.Equal(b[8:], p.csrfMAC(secret, b[:8])) {
		return false
	}
	age := p.clock().Sub(time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0))
	return age >= -csrfClockSkew && age < AccountCSRFMaxAge
}

// qrDataURL returns png as a data: URL for an img element.
func qrDataURL(png []byte) template.URL {
	// The content is our own PNG, base64-encoded: safe as a URL.
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
}
