package oauth

import (
	"net/http"
	"time"

	"github.com/ory/fosite"

	"github.com/hoplink/hoplink/account"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/web"
)

// pageHeaders sets the security headers of every answer of the authorization
// endpoint and the connections page (web.OAuthPolicy: no form-action, as
// the consent form's answer redirects to the client, which form-action
// 'self' would block in some browsers).
func pageHeaders(w http.ResponseWriter) {
	web.SetHeaders(w.Header(), web.OAuthPolicy)
}

// render writes the web page name with view, after putting a CSRF token in
// it with setCSRF.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, view any, setCSRF func(token string)) {
	csrf, err := s.opts.Sessions.CSRFToken(w, r)
	if err != nil {
		s.pageError(w, r, "issuing a CSRF token", err)
		return
	}
	setCSRF(csrf)
	if err := web.Render(w, r, status, name, view); err != nil {
		s.pageError(w, r, "rendering a page", err)
	}
}

// pageError logs err and answers 500 with a page that says so.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.ErrorContext(r.Context(), "oauth: "+what, "err", err)
	v := web.MessageView{Frame: web.Frame{Title: "Something went wrong", Error: msgSomethingWrong},
		Link: "/account", LinkText: "Go to your account"}
	if web.Render(w, r, http.StatusInternalServerError, web.PageMessage, v) != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(msgSomethingWrong + "\n"))
	}
}

// msgSomethingWrong is the pages' answer to an unexpected error.
const msgSomethingWrong = "Something went wrong on our side. Please try again."

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
	orgs := make([]web.Option, 0, len(members)+1)
	for _, m := range members {
		roles = append(roles, m.Role)
		orgs = append(orgs, web.Option{Value: m.OrgID.String(), Label: m.OrgName + " (" + string(m.Role) + ")"})
	}
	if len(members) > 1 {
		orgs = append(orgs, web.Option{Value: OrgAll, Label: "All my organizations"})
	}
	offered := GrantableScopes(requested, roles)
	var withheld []string
	for _, sc := range requested {
		if !contains(offered, sc) {
			withheld = append(withheld, sc)
		}
	}
	v := &web.ConsentView{Frame: web.Frame{Title: "Connect " + name, Error: msg},
		ClientName: name, RedirectHost: redirectHost(ar), Email: who.User.Email,
		Hidden: hiddenParams(ar.GetRequestForm()), Orgs: orgs,
		Permissions: web.DescribeScopes(offered), Withheld: web.DescribeScopes(withheld)}
	s.render(w, r, status, web.PageConsent, v, func(token string) { v.CSRF = token })
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
