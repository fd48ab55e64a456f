package auth

// Role is a team member's role in an organization.
type Role string

// The three roles, from most to least powerful.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == RoleOwner || r == RoleAdmin || r == RoleMember }

// Action is something a request may do, the unit of the role-permission matrix.
type Action string

// Every action of the role-permission matrix (see the package doc).
const (
	ActLinksRead     Action = "links.read"
	ActLinksCreate   Action = "links.create"
	ActLinksWrite    Action = "links.write" // update, delete, activate, move a link
	ActAppsRead      Action = "apps.read"
	ActAppsWrite     Action = "apps.write"
	ActAnalyticsRead Action = "analytics.read" // clicks and exports
	ActInstallsRead  Action = "installs.read"
	ActAttemptsRead  Action = "attempts.read"
	ActKeysRead      Action = "keys.read"
	ActKeysWrite     Action = "keys.write"
	ActDomainsRead   Action = "domains.read"
	ActDomainsWrite  Action = "domains.write"
	ActOrgRead       Action = "org.read"
	ActOrgWrite      Action = "org.write" // organization settings such as parameter defaults
	ActOrgSecurity   Action = "org.security"
	ActOrgDelete     Action = "org.delete"
	ActTeamRead      Action = "team.read"
	ActTeamWrite     Action = "team.write"
	ActOwnersManage  Action = "owners.manage" // change, add or remove an owner
	ActAuditRead     Action = "audit.read"
	ActWebhooksRead  Action = "webhooks.read"
	ActWebhooksWrite Action = "webhooks.write"
)

// Reach says how far an action extends for a role.
type Reach uint8

const (
	// None forbids the action.
	None Reach = iota
	// Own allows the action on resources the member created (links, keys) or
	// that derive from them (installs of their own links).
	Own
	// All allows the action on every resource of the organization.
	All
)

// matrix is the role-permission matrix. Admins may do everything but delete
// the organization, change its security policy and change owners. Members
// read links, apps, domains, the team and the organization, create links,
// change and delete their own links, read installs of their own links, never
// the attempts list, and manage only the keys they created.
var matrix = map[Action][3]Reach{ // owner, admin, member
	ActLinksRead:     {All, All, All},
	ActLinksCreate:   {All, All, All},
	ActLinksWrite:    {All, All, Own},
	ActAppsRead:      {All, All, All},
	ActAppsWrite:     {All, All, None},
	ActAnalyticsRead: {All, All, Own},
	ActInstallsRead:  {All, All, Own},
	ActAttemptsRead:  {All, All, None},
	ActKeysRead:      {All, All, Own},
	ActKeysWrite:     {All, All, Own},
	ActDomainsRead:   {All, All, All},
	ActDomainsWrite:  {All, All, None},
	ActOrgRead:       {All, All, All},
	ActOrgWrite:      {All, All, None},
	ActOrgSecurity:   {All, None, None},
	ActOrgDelete:     {All, None, None},
	ActTeamRead:      {All, All, All},
	ActTeamWrite:     {All, All, None},
	ActOwnersManage:  {All, None, None},
	ActAuditRead:     {All, All, None},
	ActWebhooksRead:  {All, All, All},
	ActWebhooksWrite: {All, All, None},
}

// Actions lists every action of the matrix.
func Actions() []Action {
	out := make([]Action, 0, len(matrix))
	for a := range matrix {
		out = append(out, a)
	}
	return out
}

// ReachOf returns how far action extends for role; an unknown role or action is None.
func ReachOf(role Role, action Action) Reach {
	row, ok := matrix[action]
	if !ok {
		return None
	}
	switch role {
	case RoleOwner:
		return row[0]
	case RoleAdmin:
		return row[1]
	case RoleMember:
		return row[2]
	}
	return None
}

// scopeActions names, for each scope, the actions a role needs at least one
// of (at any reach) to hold the scope.
var scopeActions = map[Scope][]Action{
	ScopeLinksRead:        {ActLinksRead},
	ScopeLinksWrite:       {ActLinksCreate, ActLinksWrite},
	ScopeAppsRead:         {ActAppsRead},
	ScopeAppsWrite:        {ActAppsWrite},
	ScopeAnalyticsRead:    {ActAnalyticsRead, ActInstallsRead},
	ScopeAttributionWrite: nil,
	ScopeKeysRead:         {ActKeysRead},
	ScopeKeysWrite:        {ActKeysWrite},
	ScopeDomainsRead:      {ActDomainsRead},
	ScopeDomainsWrite:     {ActDomainsWrite},
	ScopeOrgRead:          {ActOrgRead},
	ScopeOrgDelete:        {ActOrgDelete},
	ScopeTeamRead:         {ActTeamRead},
	ScopeTeamWrite:        {ActTeamWrite},
	ScopeWebhooksRead:     {ActWebhooksRead},
	ScopeWebhooksWrite:    {ActWebhooksWrite},
}

// RoleGrants reports whether role may hold scope: a key created by a member of
// that role may carry it. attribution:write belongs to SDK keys, which every
// role may create.
func RoleGrants(role Role, scope Scope) bool {
	if !role.Valid() {
		return false
	}
	acts, ok := scopeActions[scope]
	if !ok {
		return false
	}
	if len(acts) == 0 {
		return true
	}
	for _, a := range acts {
		if ReachOf(role, a) != None {
			return true
		}
	}
	return false
}
