package oauth

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
)

const pageStyle = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}` +
	`.error{color:#b00020}button{margin-right:.5rem;padding:.4rem 1rem}table{border-collapse:collapse}td,th{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #ddd}`

// pageCSP allows the pages' one inline style. It has no form-action: the
// consent form's answer redirects to the client, which form-action 'self'
// would block in some browsers.
var pageCSP = func() string {
	sum := sha256.Sum256([]byte(pageStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; base-uri 'none'; frame-ancestors 'none'"
}()

// pageHeaders sets the security headers of every answer of the authorization
// endpoint and the connections page.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

var pages = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Hoplink</title><style>` + pageStyle + `</style></head><body>
<h1>{{.Title}}</h1>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
{{if eq .Page "consent"}}
<p><strong>{{.ClientName}}</strong> wants to use your Hoplink account{{if .RedirectHost}} and will receive the answer at <strong>{{.RedirectHost}}</strong>{{end}}.</p>
<p>Signed in as {{.Email}}.</p>
<form method="post" action="/oauth/authorize">
{{range .Hidden}}<input type="hidden" name="{{index . 0}}" value="{{index . 1}}">
{{end}}<input type="hidden" name="csrf_token" value="{{.CSRF}}">
<p><label for="org_id">Organization</label><br>
<select id="org_id" name="org_id">
{{range .Orgs}}<option value="{{.Value}}">{{.Label}}</option>
{{end}}</select></p>
<p>It will be allowed to:</p>
<ul>{{range .Scopes}}<li><code>{{.}}</code></li>{{end}}</ul>
{{if .Withheld}}<p>Your role does not allow: {{range .Withheld}}<code>{{.}}</code> {{end}}</p>{{end}}
<p><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>
{{else if eq .Page "connections"}}
{{if .Connections}}<table><thead><tr><th>Client</th><th>Organizations</th><th>Scopes</th><th>Connected</th><th>Last used</th><th></th></tr></thead><tbody>
{{range .Connections}}<tr><td>{{.Client}}</td><td>{{.Orgs}}</td><td>{{.Scopes}}</td><td>{{.Created}}</td><td>{{.LastUsed}}</td>
<td><form method="post" action="/account/connections/revoke"><input type="hidden" name="csrf_token" value="{{$.CSRF}}"><input type="hidden" name="id" value="{{.ID}}"><button type="submit">Revoke</button></form></td></tr>
{{end}}</tbody></table>{{else}}<p>No application is connected to your account.</p>{{end}}
<p><a href="/account">Back to your account</a></p>
{{end}}
</body></html>
`))

type orgOption struct{ Value, Label string }

type connectionRow struct {
	ID                                      uuid.UUID
	Client, Orgs, Scopes, Created, LastUsed string
}

type pageData struct {
	Page, Title, Error, CSRF string
	// The consent page.
	ClientName, RedirectHost, Email string
	Hidden                          [][2]string
	Orgs                            []orgOption
	Scopes, Withheld                []string
	// The connections page.
	Connections []connectionRow
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	csrf, err := s.opts.Sessions.CSRFToken(w, r)
	if err != nil {
		s.pageError(w, r, "issuing a CSRF token", err)
		return
	}
	d.CSRF = csrf
	var b bytes.Buffer
	if err := pages.Execute(&b, d); err != nil {
		s.pageError(w, r, "rendering a page", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// pageError logs err and answers 500 with a plain page.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.ErrorContext(r.Context(), "oauth: "+what, "err", err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte("Something went wrong on our side. Please try again.\n"))
}

// showConsent renders the consent page: the client's name, its redirect
// host, the user's organizations (one, or all), and the requested scopes
// that the user's best role allows.
func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, status int, ar fosite.AuthorizeRequester,
	who *account.Authenticated, members []account.Membership, requested []string, msg string) {
	name := ar.GetClient().GetID()
	if c, ok := ar.GetClient().(interface{ GetName() string }); ok && c.GetName() != "" {
		name = c.GetName()
	}
	roles := make([]auth.Role, 0, len(members))
	orgs := make([]orgOption, 0, len(members)+1)
	for _, m := range members {
		roles = append(roles, m.Role)
		orgs = append(orgs, orgOption{Value: m.OrgID.String(), Label: m.OrgName + " (" + string(m.Role) + ")"})
	}
	if len(members) > 1 {
		orgs = append(orgs, orgOption{Value: OrgAll, Label: "All my organizations"})
	}
	offered := GrantableScopes(requested, roles)
	var withheld []string
	for _, sc := range requested {
		if !contains(offered, sc) {
			withheld = append(withheld, sc)
		}
	}
	s.render(w, r, status, pageData{Page: "consent", Title: "Connect " + name, Error: msg,
		ClientName: name, RedirectHost: redirectHost(ar), Email: who.User.Email,
		Hidden: hiddenParams(ar.GetRequestForm()), Orgs: orgs, Scopes: offered, Withheld: withheld})
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func formatTime(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
