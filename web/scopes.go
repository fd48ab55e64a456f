package web

// Permission is a scope as the consent page shows it.
type Permission struct {
	Scope string
	// Description says in plain words what the scope allows.
	Description string
	// Destructive is true for a scope that can change or delete data,
	// flagged on the page.
	Destructive bool
}

// permissions describe every scope of SPEC.md's scope list.
var permissions = map[string]Permission{
	"links:read":        {Description: "See your links and their settings"},
	"links:write":       {Description: "Create, change and delete links", Destructive: true},
	"apps:read":         {Description: "See your apps"},
	"apps:write":        {Description: "Create, change and delete apps", Destructive: true},
	"analytics:read":    {Description: "See click analytics, installs and attribution attempts"},
	"attribution:write": {Description: "Record app installs for attribution", Destructive: true},
	"keys:read":         {Description: "See your API keys' names and settings (never the keys themselves)"},
	"keys:write":        {Description: "Create and revoke API keys", Destructive: true},
	"domains:read":      {Description: "See your custom domains"},
	"domains:write":     {Description: "Add, verify and delete custom domains", Destructive: true},
	"org:read":          {Description: "See your organization's details"},
	"org:delete":        {Description: "Delete the whole organization and all its data", Destructive: true},
	"team:read":         {Description: "See team members and invitations"},
	"team:write":        {Description: "Invite, change and remove team members", Destructive: true},
	"webhooks:read":     {Description: "See webhook endpoints and their deliveries"},
	"webhooks:write":    {Description: "Create, change and delete webhook endpoints, which send your events to other servers", Destructive: true},
}

// DescribeScope returns the Permission of scope. A scope not in the list
// is described by its name and flagged, as nothing says it is harmless.
func DescribeScope(scope string) Permission {
	p, ok := permissions[scope]
	if !ok {
		return Permission{Scope: scope, Description: "Use the permission " + scope, Destructive: true}
	}
	p.Scope = scope
	return p
}

// DescribeScopes returns the Permission of each scope, in order.
func DescribeScopes(scopes []string) []Permission {
	out := make([]Permission, len(scopes))
	for i, s := range scopes {
		out[i] = DescribeScope(s)
	}
	return out
}
