package httpapi

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"html/template"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"strconv"
	"time"

	qrcode "github.com/yeqown/go-qrcode/v2"

	"github.com/hoplink/hoplink/account"
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
	Sessions          []sessionView
	// Connections says that this server lists the user's OAuth
	// connections (GET /account/connections is one of its routes).
	Connections bool

	Secret string
	// URI is the otpauth URI, trusted as a link: account.TOTPURI escapes
	// the email it holds.
	URI         template.URL
	QR          template.URL
	BackupCodes []string

	// Invitation is the invitation of the acceptance page.
	Invitation *invitationView
}

// accountStyle is the pages' only style; AccountPageCSP allows it by hash.
const accountStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}` +
	`label,input,button{display:block;font:inherit;margin:.4rem 0}input{width:100%;box-sizing:border-box;padding:.4rem}` +
	`button{padding:.4rem 1rem;cursor:pointer}form.inline{display:inline}form.inline button{display:inline;margin:0}` +
	`table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem;border-bottom:1px solid #ccc;vertical-align:top}` +
	`.error{color:#b00020;font-weight:600}.notice{color:#0a5d00}code,.codes{font-family:ui-monospace,monospace}` +
	`.codes{font-size:1.1rem;columns:2}section{margin:2rem 0}:focus{outline:3px solid #1a5fb4;outline-offset:2px}`

var accountTemplates = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Hoplink</title>
<style>` + accountStyle + `</style>
</head><body>
<main>
<h1>{{.Title}}</h1>
{{- with .Error}}
<p class="error" role="alert" id="error">{{.}}</p>
{{- end}}
{{- with .Notice}}
<p class="notice" role="status" id="notice">{{.}}</p>
{{- end}}
{{template "body" .}}
</main>
</body></html>
{{define "csrf"}}<input type="hidden" name="` + AccountCSRFField + `" value="{{.CSRF}}">{{end}}
{{define "return_to"}}{{with .ReturnTo}}<input type="hidden" name="` + ReturnToField + `" value="{{.}}">{{end}}{{end}}
`))

var accountBodies = map[string]string{
	"login": `<form method="post" action="/login">
{{template "csrf" .}}{{template "return_to" .}}
<label for="email">Email</label>
<input id="email" name="email" type="email" required autocomplete="username" value="{{.Email}}"{{if not .Email}} autofocus{{end}}>
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password"{{if .Email}} autofocus{{end}}>
<button type="submit" id="sign-in">Sign in</button>
</form>`,

	"otp": `<form method="post" action="/login">
{{template "csrf" .}}{{template "return_to" .}}
<input type="hidden" name="pending" value="{{.Pending}}">
<label for="otp">Code from your authenticator app, or a backup code</label>
<input id="otp" name="otp" type="text" required autofocus autocomplete="one-time-code" inputmode="text" spellcheck="false">
<button type="submit" id="verify">Verify</button>
</form>
<p><a href="/login">Start again</a></p>`,

	"account": `<p>Signed in as <strong id="account-email">{{.Email}}</strong>.</p>
<section aria-labelledby="orgs-h"><h2 id="orgs-h">Organizations</h2>
{{- if .Memberships}}
<table><thead><tr><th scope="col">Organization</th><th scope="col">Role</th></tr></thead><tbody>
{{- range .Memberships}}
<tr><td>{{.OrgName}}</td><td>{{.Role}}</td></tr>
{{- end}}
</tbody></table>
{{- else}}
<p>You are not a member of any organization.</p>
{{- end}}
</section>
<section aria-labelledby="tfa-h"><h2 id="tfa-h">Two-factor authentication</h2>
<p id="two-factor-status">{{if .TwoFactorEnabled}}On.{{else}}Off.{{end}}</p>
<p><a href="/account/2fa" id="two-factor-link">{{if .TwoFactorEnabled}}Manage two-factor authentication{{else}}Turn on two-factor authentication{{end}}</a></p>
</section>
{{- if .Connections}}
<section aria-labelledby="connections-h"><h2 id="connections-h">Connected applications</h2>
<p><a href="/account/connections" id="connections-link">Applications you allowed to act for you (MCP clients), and revoking them</a></p>
</section>
{{- end}}
<section aria-labelledby="sessions-h"><h2 id="sessions-h">Active sessions</h2>
<table><thead><tr><th scope="col">Browser</th><th scope="col">IP address</th><th scope="col">Signed in</th><th scope="col">Last active</th><th scope="col"><span hidden>Action</span></th></tr></thead><tbody>
{{- range .Sessions}}
<tr><td>{{.UserAgent}}{{if .Current}} <strong>(this browser)</strong>{{end}}</td><td>{{.IP}}</td><td>{{.Created}}</td><td>{{.LastSeen}}</td>
<td><form class="inline" method="post" action="/account/sessions/revoke">{{template "csrf" $}}<input type="hidden" name="session_id" value="{{.ID}}"><button type="submit">Revoke</button></form></td></tr>
{{- end}}
</tbody></table>
</section>
<section aria-labelledby="pw-h"><h2 id="pw-h">Change password</h2>
<form method="post" action="/account/password">
{{template "csrf" .}}
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" required autocomplete="current-password">
<label for="new_password">New password (at least 10 characters)</label>
<input id="new_password" name="password" type="password" required minlength="10" autocomplete="new-password">
<button type="submit">Change password</button>
</form>
</section>
<form method="post" action="/logout">{{template "csrf" .}}<button type="submit" id="sign-out">Sign out</button></form>`,

	"2fa-enrol": `{{if .EnrolmentRequired}}<p>An organization you belong to requires two-factor authentication. Turn it on to continue.</p>{{end}}
<ol>
<li>Scan this QR code with your authenticator app, or enter the key by hand.</li>
<li>Enter the six-digit code the app shows.</li>
</ol>
<p><img src="{{.QR}}" alt="QR code of the authenticator key" width="264" height="264"></p>
<p>Key: <code id="totp-secret">{{.Secret}}</code></p>
<p>Or open this link on the device with your app: <a href="{{.URI}}" id="totp-uri">{{.URI}}</a></p>
<form method="post" action="/account/2fa">
{{template "csrf" .}}{{template "return_to" .}}
<input type="hidden" name="action" value="confirm">
<label for="otp">Six-digit code</label>
<input id="otp" name="otp" type="text" required inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}">
<button type="submit" id="confirm">Turn on</button>
</form>
{{if not .EnrolmentRequired}}<p><a href="/account">Back to your account</a></p>{{end}}`,

	"2fa-codes": `<p>Two-factor authentication is on. Keep these backup codes somewhere safe: each one signs you in once if you lose your authenticator app. They are shown only now.</p>
<ul class="codes" id="backup-codes">
{{- range .BackupCodes}}
<li><code>{{.}}</code></li>
{{- end}}
</ul>
<p><a href="{{.ReturnTo}}" id="continue">Continue</a></p>`,

	"2fa-manage": `<p id="two-factor-status">Two-factor authentication is on for {{.Email}}.</p>
<h2>Turn it off</h2>
<form method="post" action="/account/2fa">
{{template "csrf" .}}
<input type="hidden" name="action" value="disable">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<label for="otp">Code from your authenticator app, or a backup code</label>
<input id="otp" name="otp" type="text" required autocomplete="one-time-code">
<button type="submit" id="disable">Turn off</button>
</form>
<p><a href="/account">Back to your account</a></p>`,

	"error": `<p><a href="/account">Back to your account</a></p>`,
}

// accountPageTemplates holds one template per page, each the layout with
// its body.
var accountPageTemplates = func() map[string]*template.Template {
	out := make(map[string]*template.Template, len(accountBodies)+len(invitationBodies))
	for _, bodies := range []map[string]string{accountBodies, invitationBodies} {
		for name, body := range bodies {
			t := template.Must(accountTemplates.Clone())
			template.Must(t.New("body").Parse(body))
			out[name] = t
		}
	}
	return out
}()

// render writes the page name with d.
func (p *accountPages) render(w http.ResponseWriter, r *http.Request, status int, name string, d pageData) {
	var b bytes.Buffer
	if err := accountPageTemplates[name].Execute(&b, d); err != nil {
		p.a.log.ErrorContext(r.Context(), "rendering an account page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd["Content-Type"] = htmlType
	hd.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
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

// QR codes: the otpauth URI encoded by github.com/yeqown/go-qrcode/v2 and
// drawn here as a PNG, qrModule pixels per module with the standard quiet
// zone of four modules.
const (
	qrModule = 6
	qrQuiet  = 4
)

// qrPNG returns the PNG of a QR code of text.
func qrPNG(text string) ([]byte, error) {
	q, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, err
	}
	var m bitmapWriter
	if err := q.Save(&m); err != nil {
		return nil, err
	}
	n := len(m.bits)
	size := (n + 2*qrQuiet) * qrModule
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{color.White, color.Black})
	for y, row := range m.bits {
		for x, dark := range row {
			if !dark {
				continue
			}
			x0, y0 := (x+qrQuiet)*qrModule, (y+qrQuiet)*qrModule
			for dy := range qrModule {
				for dx := range qrModule {
					img.SetColorIndex(x0+dx, y0+dy, 1)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// bitmapWriter is a qrcode.Writer that keeps the code's modules, [y][x],
// true for dark.
type bitmapWriter struct{ bits [][]bool }

func (w *bitmapWriter) Write(m qrcode.Matrix) error {
	w.bits = m.Bitmap()
	return nil
}

func (w *bitmapWriter) Close() error { return nil }

// qrDataURL returns png as a data: URL for an img element.
func qrDataURL(png []byte) template.URL {
	// The content is our own PNG, base64-encoded: safe as a URL.
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
}
