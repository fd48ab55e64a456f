package web

import (
	"html/template"
	"strings"
)

// Frame is what the layout shows around every page: the title (also the
// h1) and an error or notice above the content. Every view embeds it.
type Frame struct {
	Title string
	// Error is shown as an alert; Notice as a status line.
	Error, Notice string
}

// AccountView fills the sign-in, account and two-factor pages (PageLogin,
// PageOTP, PageAccount, PageTwoFactorEnrol, PageTwoFactorCodes,
// PageTwoFactorManage) and the invitation pages.
type AccountView struct {
	Frame
	// CSRF is the forms' token (field csrf_token).
	CSRF string
	// ReturnTo is where a sign-in goes afterwards (field return_to); "" for
	// the default.
	ReturnTo string
	Email    string
	// Pending is the second sign-in step's token.
	Pending string

	TwoFactorEnabled  bool
	EnrolmentRequired bool
	Memberships       []Membership
	Sessions          []Session
	// Connections says that the host lists the user's OAuth connections
	// (GET /account/connections).
	Connections bool
	// APIDescription says that the host serves the REST API's OpenAPI
	// description (GET /v1/openapi.json), which the account page links.
	APIDescription bool
	// Dashboard says that the host serves the dashboard (GET /dashboard),
	// which the account page links.
	Dashboard bool

	// Secret is the TOTP key in base32, shown by SecretGroups.
	Secret string
	// URI is the otpauth URI, trusted as a link: its maker escapes what it
	// holds.
	URI template.URL
	// QR is the QR code of URI as a data: URL (the CSP allows data: images).
	QR          template.URL
	BackupCodes []string

	// Invitation is the invitation of the invitation pages.
	Invitation *Invitation
}

// SecretGroups returns Secret in groups of four characters, for reading it
// into an app by hand.
func (v AccountView) SecretGroups() string { return Group(v.Secret, 4) }

// Group returns s split by spaces into groups of n characters.
func Group(s string, n int) string {
	if n < 1 || len(s) <= n {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[i:min(i+n, len(s))])
	}
	return b.String()
}

// Membership is one organization of the account page.
type Membership struct {
	Name, Role string
}

// Session is one session on the account page.
type Session struct {
	ID string
	// Browser names the browser and its system ("Firefox on Linux");
	// UserAgent is the raw header, shown as a tooltip.
	Browser   string
	UserAgent string
	IP        string
	Created   string
	LastSeen  string
	Current   bool
}

// Invitation is what the invitation pages show of an invitation.
type Invitation struct {
	Token   string
	OrgName string
	Role    string
	Email   string
	// Path is the invitation page's path.
	Path string
	// SignedInAs is the signed-in user's email, "" when signed out.
	SignedInAs string
	// Mismatch is true when SignedInAs is not Email.
	Mismatch bool
	// LoginURL is /login returning to the invitation.
	LoginURL string
}

// MessageView fills PageMessage: a short text and a link onwards.
type MessageView struct {
	Frame
	Text           string
	Link, LinkText string
}

// PasswordView fills PagePassword, a link's password form.
type PasswordView struct {
	Frame
	// Action is the form's target: the short URL's path and query.
	Action string
	// Token is the form's CSRF token (field csrf_token).
	Token string
}

// LinkErrorView fills PageLinkError, a link domain's error page.
type LinkErrorView struct {
	Frame
	Text string
}

// PreviewView fills PagePreview, the page bots read a link's preview from.
type PreviewView struct {
	Frame
	Description, Image, URL string
	// Card is the twitter:card type.
	Card string
}

// ConsentView fills PageConsent, the OAuth consent page.
type ConsentView struct {
	Frame
	CSRF string
	// ClientName is the client's self-chosen name (unverified).
	ClientName string
	// RedirectHost is the host the answer is sent to.
	RedirectHost string
	Email        string
	// Hidden are the authorization request's parameters, as name and
	// value.
	Hidden [][2]string
	Orgs   []Option
	// Permissions are the scopes the user may grant; Withheld the requested
	// ones the user's role does not allow.
	Permissions, Withheld []Permission
}

// Option is one option of a select.
type Option struct{ Value, Label string }

// ConnectionsView fills PageConnections, the user's OAuth connections.
type ConnectionsView struct {
	Frame
	CSRF        string
	Connections []Connection
}

// Connection is one row of the connections page.
type Connection struct {
	ID                                      string
	Client, Orgs, Scopes, Created, LastUsed string
	// Label tells apart two connections of one client that look alike
	// otherwise (the end of ID).
	Label string
	// RedirectHosts are the hosts the client's answers go to.
	RedirectHosts string
}
