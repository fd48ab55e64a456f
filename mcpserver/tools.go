package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoplink/hoplink/analytics"
	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/errcode/httperr"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/params"
	"github.com/hoplink/hoplink/strictjson"
	"github.com/hoplink/hoplink/webhook"
)

// ToolNames returns the names of the tools, in the order of tools.
func ToolNames() []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.def.Name
	}
	return names
}

// tool is one MCP tool: its definition, the scopes an OAuth token needs to
// call it, and what a call runs.
type tool struct {
	def    *mcp.Tool
	scopes []auth.Scope
	run    func(ctx context.Context, h *Handler, c *caller, args []byte) (any, error)
}

// orgArg is the org argument every tool takes.
type orgArg struct {
	Org string `json:"org"`
}

func (a orgArg) orgID() string { return a.Org }

type orgArgument interface{ orgID() string }

const orgDoc = "Id of the organization to act for. Optional with an API key (its own organization) and with an " +
	"OAuth connection made for one organization; required with a connection made for all your organizations " +
	"(list_organizations shows them)."

// toolSpec is what a tool declaration says besides its argument type and
// its run function.
type toolSpec struct {
	Name, Title, Description string
	// Scopes are the scopes of the tool: an OAuth token must hold one of
	// them to call it (the REST twin's scope).
	Scopes []auth.Scope
	Hints  mcp.ToolAnnotations
	// Docs describes every property of the inferred input schema.
	Docs map[string]string
	// Required lists the schema's required properties; Hidden are
	// properties the argument type decodes (to refuse them as REST does)
	// but the schema does not offer.
	Required, Hidden []string
	// Lengths bounds string properties: the least and most characters a
	// value may have (minLength and maxLength of the schema).
	Lengths map[string][2]int
	// NotNull are properties whose type the argument type infers as
	// nullable but that refuse null (a field that cannot be cleared).
	NotNull []string
}

// define returns the tool s whose arguments are an In (a struct embedding
// orgArg), decoded strictly, and whose call runs fn with the principal of
// the resolved organization.
func define[In orgArgument](s toolSpec, fn func(ctx context.Context, h *Handler, p *auth.Principal, in *In) (any, error)) tool {
	hints := s.Hints
	hints.Title = s.Title
	def := &mcp.Tool{
		Name:        s.Name,
		Title:       s.Title,
		Description: s.Description,
		InputSchema: inputSchema[In](s.Name, s.Docs, s.Required, s.Hidden, s.Lengths, s.NotNull),
		Annotations: &hints,
	}
	required := s.Required
	return tool{def: def, scopes: s.Scopes, run: func(ctx context.Context, h *Handler, c *caller, args []byte) (any, error) {
		in := new(In)
		if err := strictjson.DecodeObject(args, in); err != nil {
			return nil, err
		}
		if err := requireArgs(args, required); err != nil {
			return nil, err
		}
		p, err := h.principal(ctx, c, (*in).orgID())
		if err != nil {
			return nil, err
		}
		return fn(ctx, h, p, in)
	}}
}

// typeSchemas are the schemas of the types whose JSON is not their Go shape.
var typeSchemas = func() map[reflect.Type]*jsonschema.Schema {
	str := func(format string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Format: format} }
	orNull := func(s *jsonschema.Schema) *jsonschema.Schema {
		c := s.CloneSchemas()
		c.Types = []string{c.Type, "null"}
		c.Type = ""
		return c
	}
	mode := &jsonschema.Schema{Types: []string{"string", "null"}, Enum: []any{"always", "default", nil}}
	config, err := jsonschema.For[params.LinkConfig](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[params.Mode](): mode}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of params.LinkConfig: %v", err))
	}
	strings := &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[uuid.UUID]():                           str("uuid"),
		reflect.TypeFor[params.Mode]():                         mode,
		reflect.TypeFor[params.LinkConfig]():                   config,
		reflect.TypeFor[apitype.Optional[string]]():            orNull(&jsonschema.Schema{Type: "string"}),
		reflect.TypeFor[apitype.Optional[[]string]]():          orNull(strings),
		reflect.TypeFor[apitype.Optional[time.Time]]():         orNull(str("date-time")),
		reflect.TypeFor[apitype.Optional[uuid.UUID]]():         orNull(str("uuid")),
		reflect.TypeFor[apitype.Optional[int]]():               orNull(&jsonschema.Schema{Type: "integer"}),
		reflect.TypeFor[apitype.Optional[bool]]():              {Type: "boolean"},
		reflect.TypeFor[apitype.Optional[params.LinkConfig]](): orNull(config),
		reflect.TypeFor[apitype.Optional[json.RawMessage]]():   {},
	}
}()

// inputSchema infers the input schema of tool name from In, describes each
// property from docs, bounds the lengths of those in lengths, and sets the
// required properties. It panics when a property has no description, so an
// undocumented field cannot ship.
func inputSchema[In any](name string, docs map[string]string, required, hidden []string, lengths map[string][2]int,
	notNull []string) *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %s: %v", name, err))
	}
	for _, p := range hidden {
		delete(s.Properties, p)
	}
	order := s.PropertyOrder[:0]
	for _, p := range s.PropertyOrder {
		if _, ok := s.Properties[p]; ok {
			order = append(order, p)
		}
	}
	s.PropertyOrder = order
	for p, ps := range s.Properties {
		doc, ok := docs[p]
		if !ok {
			panic(fmt.Sprintf("mcpserver: input schema of %s: property %s has no description", name, p))
		}
		ps.Description = doc
		if b, ok := lengths[p]; ok {
			ps.MinLength, ps.MaxLength = &b[0], &b[1]
		}
		if slices.Contains(notNull, p) {
			ps.Types = slices.DeleteFunc(slices.Clone(ps.Types), func(t string) bool { return t == "null" })
			if len(ps.Types) == 1 {
				ps.Type, ps.Types = ps.Types[0], nil
			}
		}
	}
	s.Required = required
	return s
}

// requireArgs refuses args, a JSON object, when it lacks a required
// argument: VALIDATION_ERROR with "is required" for each one missing (a
// null counts as missing).
func requireArgs(args []byte, required []string) error {
	if len(required) == 0 {
		return nil
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(args, &present); err != nil {
		return errcode.Field("arguments", "must be a JSON object")
	}
	var missing []errcode.FieldError
	for _, name := range required {
		if v, ok := present[name]; !ok || string(v) == "null" {
			missing = append(missing, errcode.FieldError{Field: name, Message: "is required"})
		}
	}
	if len(missing) > 0 {
		return errcode.Validation(missing...)
	}
	return nil
}

// argumentsObject refuses arguments that are not a JSON object, naming
// what they are instead.
func argumentsObject(args json.RawMessage) error {
	trimmed := strings.TrimSpace(string(args))
	kind := "a number"
	switch {
	case strings.HasPrefix(trimmed, "{"):
		return nil
	case strings.HasPrefix(trimmed, "["):
		kind = "an array"
	case strings.HasPrefix(trimmed, `"`):
		kind = "a string"
	case trimmed == "true" || trimmed == "false":
		kind = "a boolean"
	}
	return errcode.Field("arguments", "must be a JSON object holding the tool's arguments by name, not "+kind)
}

// errAppRequired is create_link's error for an organization without an
// app: the REST message, and where to create one, since no tool does.
var errAppRequired = errcode.New(errcode.AppRequired,
	"the organization has no app, and a link needs one: create an app first with POST /v1/apps (an API key "+
		"with apps:write) or in the dashboard, then call create_link again; no MCP tool creates apps")

// idDoc describes the id argument of a tool on one resource.
func idDoc(resource string) string { return "Id of the " + resource + " (a UUID)." }

// parseID reads an id argument as REST reads a path id (400 INVALID_ID).
func parseID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, errcode.New(errcode.InvalidID, "id is not a valid UUID")
	}
	return id, nil
}

// with returns docs with more added.
func with(docs map[string]string, more map[string]string) map[string]string {
	out := make(map[string]string, len(docs)+len(more))
	for k, v := range docs {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// linkLengths bounds the string fields of a link's create and update
// bodies whose bounds the schema states, as openapi.yaml does.
var linkLengths = map[string][2]int{
	"password": {linking.MinLinkPasswordLength, linking.MaxLinkPasswordLength},
}

// linkDocs describe the fields of a link's create and update bodies.
var linkDocs = map[string]string{
	"org": orgDoc,
	"destination_url": "Web destination: an absolute URL with its protocol, opened by desktop browsers and by " +
		"visitors without the app.",
	"slug": "Path of the short URL: 2 to 100 lowercase letters, digits and single hyphens; generated when " +
		"omitted. Unique per domain; reserved slugs are refused.",
	"name":                 "Dashboard name; when null or omitted the slug is shown.",
	"domain":               "Link domain serving the link; defaults to the app's default link domain, or the service's default domain for a link without an app.",
	"ios_url":              "URL opened on iOS (a universal link or a custom-scheme deep link).",
	"ios_fallback_url":     "URL opened on iOS when the app is not installed; the app's App Store URL by default.",
	"android_url":          "URL opened on Android (an app link or a custom-scheme deep link).",
	"android_fallback_url": "URL opened on Android when the app is not installed.",
	"og_title":             "Preview title shown to bots and link unfurlers; at most 255 characters.",
	"og_description":       "Preview description shown to bots and link unfurlers.",
	"og_image_url":         "Preview image: an absolute URL.",
	"tags":                 "Tags: at most 20, each at most 50 characters.",
	"expires_at":           "RFC 3339 instant from which the link is expired (410 Gone); must be in the future.",
	"password":             "Password a visitor must enter before the redirect, 8 to 200 characters; never returned.",
	"app_id":               "Id of an app of the organization the link belongs to.",
	"utm_source":           "utm_source added to http and https targets on redirect, unless an injected parameter or the visitor's own value wins.",
	"utm_medium":           "utm_medium added to http and https targets on redirect, unless an injected parameter or the visitor's own value wins.",
	"utm_campaign":         "utm_campaign added to http and https targets on redirect, unless an injected parameter or the visitor's own value wins.",
	"match_window_hours":   "Deferred-deep-link attribution match window, in hours (1 to 8760).",
	"parameters": "Query-parameter rules (LinkParamConfig): injected parameters, forwarding, defaultMode, " +
		"inheritOrgInjected and suppressedOrgKeys; null inherits the organization's defaults.",
	"is_active": "false pauses the link; true reactivates it.",
}

var listDocs = map[string]string{
	"org":    orgDoc,
	"limit":  "Page size, 1 to 100; 20 when omitted.",
	"offset": "Number of items to skip, 0 or more; 0 when omitted.",
}

var cursorDocs = map[string]string{
	"org":    orgDoc,
	"app_id": `Id of an app to read only its records, or "none" for records without an app; all apps when omitted.`,
	"from": "Inclusive start, an ISO 8601 instant with an offset; the earliest instant the plan may read when " +
		"omitted (Free plans: the last 30 days).",
	"to":     "Exclusive end, an ISO 8601 instant with an offset, after from; now when omitted.",
	"limit":  "Page size, 1 to 500; 100 when omitted.",
	"cursor": "pagination.next_cursor of the previous page, sent with the same other arguments.",
}

type idArgs struct {
	orgArg
	ID string `json:"id"`
}

type createLinkArgs struct {
	orgArg
	linking.CreateLinkInput
}

type updateLinkArgs struct {
	orgArg
	ID string `json:"id"`
	linking.UpdateLinkInput
}

type listLinksArgs struct {
	orgArg
	Limit    *int    `json:"limit"`
	Offset   *int    `json:"offset"`
	Tag      *string `json:"tag"`
	IsActive *bool   `json:"is_active"`
	Search   *string `json:"search"`
}

type listAppsArgs struct {
	orgArg
	Limit  *int    `json:"limit"`
	Offset *int    `json:"offset"`
	Search *string `json:"search"`
}

type cursorArgs struct {
	orgArg
	AppID  *string `json:"app_id"`
	From   *string `json:"from"`
	To     *string `json:"to"`
	Limit  *int    `json:"limit"`
	Cursor *string `json:"cursor"`
}

// query returns the arguments as the lists' query: each as the text the
// REST query parameter would carry.
func (a cursorArgs) query() attribution.ListQuery {
	q := attribution.ListQuery{AppID: a.AppID, From: a.From, To: a.To, Cursor: a.Cursor}
	if a.Limit != nil {
		limit := strconv.Itoa(*a.Limit)
		q.Limit = &limit
	}
	return q
}

type listInstallsArgs struct {
	cursorArgs
	LinkID *string `json:"link_id"`
}

type listAttemptsArgs struct {
	cursorArgs
	Matched *bool `json:"matched"`
}

// analyticsArgs are get_analytics' arguments: the kind of query and the
// parameters of GET /v1/analytics/timeseries or /breakdown.
type analyticsArgs struct {
	orgArg
	Kind        string  `json:"kind"`
	Interval    *string `json:"interval"`
	Timezone    *string `json:"timezone"`
	By          *string `json:"by"`
	Limit       *int    `json:"limit"`
	From        *string `json:"from"`
	To          *string `json:"to"`
	LinkID      *string `json:"link_id"`
	AppID       *string `json:"app_id"`
	Domain      *string `json:"domain"`
	Tag         *string `json:"tag"`
	Source      *string `json:"source"`
	Platform    *string `json:"platform"`
	Country     *string `json:"country"`
	UTMSource   *string `json:"utm_source"`
	UTMMedium   *string `json:"utm_medium"`
	UTMCampaign *string `json:"utm_campaign"`
}

// run calls the query of a.Kind, as its REST twin would with the same
// parameters: an argument of the other kind is refused as an unknown
// query parameter is.
func (a *analyticsArgs) run(ctx context.Context, q *analytics.Queries, p *auth.Principal) (any, error) {
	params := analytics.Params{From: a.From, To: a.To, LinkID: a.LinkID, AppID: a.AppID, Domain: a.Domain,
		Tag: a.Tag, Source: a.Source, Platform: a.Platform, Country: a.Country, UTMSource: a.UTMSource,
		UTMMedium: a.UTMMedium, UTMCampaign: a.UTMCampaign}
	other := func(kind string, args map[string]bool) {
		for _, name := range []string{"interval", "timezone", "by", "limit"} {
			if args[name] {
				params.Invalid = append(params.Invalid, errcode.FieldError{Field: name,
					Message: "is not an argument of kind " + kind})
			}
		}
	}
	switch a.Kind {
	case "timeseries":
		other("timeseries", map[string]bool{"by": a.By != nil, "limit": a.Limit != nil})
		return q.TimeSeries(ctx, p, analytics.TimeSeriesQuery{Params: params, Interval: a.Interval, Timezone: a.Timezone})
	case "breakdown":
		other("breakdown", map[string]bool{"interval": a.Interval != nil, "timezone": a.Timezone != nil})
		bq := analytics.BreakdownQuery{Params: params, By: a.By}
		if a.Limit != nil {
			limit := strconv.Itoa(*a.Limit)
			bq.Limit = &limit
		}
		return q.Breakdown(ctx, p, bq)
	}
	return nil, errcode.Field("kind", `must be "timeseries" or "breakdown"`)
}

// analyticsDocs describes get_analytics' arguments.
var analyticsDocs = map[string]string{
	"org":  orgDoc,
	"kind": `"timeseries" for clicks and installs per bucket of time, "breakdown" for them per value of a dimension.`,
	"interval": "timeseries only: the bucket length, hour, day, week or month; day when omitted. Days start at " +
		"local midnight of timezone, weeks on Monday.",
	"timezone": "timeseries only: the IANA time zone of the buckets, such as Europe/Berlin; UTC when omitted.",
	"by": "breakdown only, required: link, app, domain, source, platform, os, os_version, browser, device_model, " +
		"in_app_browser, country, referer_host, utm_source, utm_medium, utm_campaign, utm_term or utm_content.",
	"limit": "breakdown only: how many values to return, 1 to 100; 10 when omitted. The rest is summed in other.",
	"from": "Inclusive start, an RFC 3339 instant with an offset; 30 days before to when omitted (Free plans " +
		"read the last 30 days only).",
	"to":           "Exclusive end, an RFC 3339 instant with an offset, after from; now when omitted.",
	"link_id":      "Count only clicks of this link (its id).",
	"app_id":       "Count only clicks of links of this app (its id).",
	"domain":       "Count only clicks on this link domain.",
	"tag":          "Count only clicks of links that carry this tag.",
	"source":       "Count only redirects (redirect) or SDK resolves (app_open).",
	"platform":     "Count only clicks from ios, android, desktop or unknown.",
	"country":      "Count only clicks from this country, an ISO 3166-1 alpha-2 code in upper case (US).",
	"utm_source":   "Count only clicks with this utm_source.",
	"utm_medium":   "Count only clicks with this utm_medium.",
	"utm_campaign": "Count only clicks with this utm_campaign.",
}

// exportClicksArgs are the arguments of export_clicks: an id to poll, or
// the body of POST /v1/analytics/exports.
type exportClicksArgs struct {
	orgArg
	ID   *string `json:"id"`
	From *string `json:"from"`
	To   *string `json:"to"`
	analytics.Filter
}

var exportDocs = map[string]string{
	"org": orgDoc,
	"id":  "Id of an export to poll; omit it to start one.",
	"from": "Inclusive start of the clicks, an RFC 3339 instant; 30 days before to when omitted. Free plans read " +
		"the last 30 days.",
	"to":           "Exclusive end, an RFC 3339 instant after from; now when omitted.",
	"link_id":      "Keep only the clicks of this link (its id).",
	"app_id":       "Keep only the clicks of this app's links (its id).",
	"domain":       "Keep only the clicks on this link domain.",
	"tag":          "Keep only the clicks of links that carry this tag.",
	"source":       "Keep only clicks of this source: redirect or app_open.",
	"platform":     "Keep only clicks from this platform: ios, android, desktop or unknown.",
	"country":      "Keep only clicks from this country (ISO 3166-1 alpha-2, such as GB).",
	"utm_source":   "Keep only clicks with this utm_source.",
	"utm_medium":   "Keep only clicks with this utm_medium.",
	"utm_campaign": "Keep only clicks with this utm_campaign.",
}

type orgsArgs struct {
	orgArg
}

// deliveriesArgs are the arguments of list_webhook_deliveries.
type deliveriesArgs struct {
	orgArg
	ID     string `json:"id"`
	Limit  *int   `json:"limit"`
	Cursor string `json:"cursor"`
}

// webhookList is the result of list_webhooks, GET /v1/webhooks's body.
type webhookList struct {
	Data []*webhook.Webhook `json:"data"`
}

// cursorPage is the pagination of a cursor list.
type cursorPage struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// deliveryList is the result of list_webhook_deliveries, GET
// /v1/webhooks/{id}/deliveries's body.
type deliveryList struct {
	Data       []webhook.Delivery `json:"data"`
	Pagination cursorPage         `json:"pagination"`
}

// organizationList is the result of list_organizations.
type organizationList struct {
	Data []*org.Organization `json:"data"`
}

func boolPtr(b bool) *bool { return &b }

var (
	readOnly    = mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	creating    = mcp.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}
	updating    = mcp.ToolAnnotations{DestructiveHint: boolPtr(true), IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	destructive = mcp.ToolAnnotations{DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(false)}
)

// tools are every tool, each declared once: its name, title, description,
// scopes, hints, argument docs, argument type and what it runs. The tool
// list, the scope check of OAuth calls and the SDK registration all read
// this list. Each tool calls the service method of its REST twin and
// returns that endpoint's JSON.
var tools = []tool{
	define(toolSpec{Name: "get_link", Title: "Get a link",
		Description: "Returns one link of the organization with the old URLs that redirect to it, as GET /v1/links/{id}.",
		Scopes:      []auth.Scope{auth.ScopeLinksRead}, Hints: readOnly,
		Docs: map[string]string{"org": orgDoc, "id": idDoc("link")}, Required: []string{"id"}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *idArgs) (any, error) {
			id, err := parseID(in.ID)
			if err != nil {
				return nil, err
			}
			return h.opts.Links.Get(ctx, p, id)
		}),
	define(toolSpec{Name: "list_links", Title: "List links",
		Description: "Returns a page of the organization's links, newest first, as GET /v1/links.",
		Scopes:      []auth.Scope{auth.ScopeLinksRead}, Hints: readOnly,
		Docs: with(listDocs, map[string]string{
			"tag":       "Keep only links with exactly this tag (1 to 50 characters).",
			"is_active": "true keeps active links, false paused ones; both when omitted.",
			"search":    "Keep links whose slug, name, destination URL or a tag contains this, ignoring case; at most 200 characters.",
		})},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *listLinksArgs) (any, error) {
			return h.opts.Links.List(ctx, p, linking.ListLinksInput{Limit: in.Limit, Offset: in.Offset,
				Tag: in.Tag, IsActive: in.IsActive, Search: in.Search})
		}),
	define(toolSpec{Name: "create_link", Title: "Create a link",
		Description: "Creates a short link, as POST /v1/links, and returns it. The organization needs an app " +
			"first (list_apps shows them): no tool creates one; an app is created with POST /v1/apps or in the " +
			"dashboard.",
		Scopes: []auth.Scope{auth.ScopeLinksWrite}, Hints: creating,
		Docs: linkDocs, Required: []string{"destination_url"}, Lengths: linkLengths},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *createLinkArgs) (any, error) {
			l, err := h.opts.Links.Create(ctx, p, in.CreateLinkInput)
			if errcode.CodeOf(err) == errcode.AppRequired {
				return nil, errAppRequired
			}
			return l, err
		}),
	define(toolSpec{Name: "update_link", Title: "Update a link",
		Description: "Changes the fields given, as PATCH /v1/links/{id}; null clears a field (all but destination_url " +
			"and is_active, which cannot be cleared). A link's domain and slug never change. Returns the link.",
		Scopes: []auth.Scope{auth.ScopeLinksWrite}, Hints: updating,
		Docs: with(linkDocs, map[string]string{"id": idDoc("link")}), Required: []string{"id"},
		Hidden: []string{"domain", "slug"}, Lengths: linkLengths, NotNull: []string{"destination_url"}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *updateLinkArgs) (any, error) {
			id, err := parseID(in.ID)
			if err != nil {
				return nil, err
			}
			return h.opts.Links.Update(ctx, p, id, in.UpdateLinkInput)
		}),
	define(toolSpec{Name: "delete_link", Title: "Delete a link",
		Description: "Deletes a link and its click history permanently, as DELETE /v1/links/{id}, freeing its slug. " +
			"Returns the deleted link.",
		Scopes: []auth.Scope{auth.ScopeLinksWrite}, Hints: destructive,
		Docs: map[string]string{"org": orgDoc, "id": idDoc("link")}, Required: []string{"id"}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *idArgs) (any, error) {
			id, err := parseID(in.ID)
			if err != nil {
				return nil, err
			}
			return h.opts.Links.Delete(ctx, p, id)
		}),
	define(toolSpec{Name: "list_apps", Title: "List apps",
		Description: "Returns a page of the organization's apps, oldest first, as GET /v1/apps.",
		Scopes:      []auth.Scope{auth.ScopeAppsRead}, Hints: readOnly,
		Docs: with(listDocs, map[string]string{
			"search": "Keep apps whose name, iOS bundle id or Android package name contains this, ignoring case; at most 200 characters.",
		})},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *listAppsArgs) (any, error) {
			return h.opts.Apps.List(ctx, p, linking.ListAppsInput{Limit: in.Limit, Offset: in.Offset, Search: in.Search})
		}),
	define(toolSpec{Name: "get_app", Title: "Get an app",
		Description: "Returns one app of the organization, as GET /v1/apps/{id}, with the state of its subdomain: " +
			"rename_period (opened_at, ends_at, extensions_used, extensions_left; null when no rename period is open) " +
			"and previous_links (links on previous_link_domain that will move with their slug, wait for a move choice, " +
			"or were kept).",
		Scopes: []auth.Scope{auth.ScopeAppsRead}, Hints: readOnly,
		Docs: map[string]string{"org": orgDoc, "id": idDoc("app")}, Required: []string{"id"}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *idArgs) (any, error) {
			id, err := parseID(in.ID)
			if err != nil {
				return nil, err
			}
			return h.opts.Apps.Detail(ctx, p, id)
		}),
	// Either of analytics:read and links:read reads the installs and
	// attempts lists, as SPEC.md says.
	define(toolSpec{Name: "list_installs", Title: "List installs",
		Description: "Returns install records tied to links, newest first, as GET /v1/installs: data, pagination " +
			"(next_cursor, has_more) and the window read.",
		Scopes: []auth.Scope{auth.ScopeAnalyticsRead, auth.ScopeLinksRead}, Hints: readOnly,
		Docs: with(cursorDocs, map[string]string{"link_id": "Keep only installs of this link (its id)."})},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *listInstallsArgs) (any, error) {
			return h.opts.Lists.Installs(ctx, p, attribution.InstallsQuery{ListQuery: in.query(), LinkID: in.LinkID})
		}),
	define(toolSpec{Name: "list_attribution_attempts", Title: "List attribution attempts",
		Description: "Returns every attribution attempt, matched or not, newest first, as GET /v1/attribution/attempts: " +
			"data, pagination (next_cursor, has_more) and the window read.",
		Scopes: []auth.Scope{auth.ScopeAnalyticsRead, auth.ScopeLinksRead}, Hints: readOnly,
		Docs: with(cursorDocs, map[string]string{"matched": "true keeps matched attempts, false unmatched ones; both when omitted."})},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *listAttemptsArgs) (any, error) {
			q := attribution.AttemptsQuery{ListQuery: in.query()}
			if in.Matched != nil {
				matched := strconv.FormatBool(*in.Matched)
				q.Matched = &matched
			}
			return h.opts.Lists.Attempts(ctx, p, q)
		}),
	define(toolSpec{Name: "list_webhooks", Title: "List webhooks",
		Description: "Returns the organization's webhooks, oldest first, as GET /v1/webhooks: each one's url, events, " +
			"filters, whether it is enabled and since when it fails. Secrets are never shown.",
		Scopes: []auth.Scope{auth.ScopeWebhooksRead}, Hints: readOnly,
		Docs: map[string]string{"org": orgDoc}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *orgsArgs) (any, error) {
			list, err := h.opts.Webhooks.List(ctx, p)
			if err != nil {
				return nil, err
			}
			return webhookList{Data: list}, nil
		}),
	define(toolSpec{Name: "list_webhook_deliveries", Title: "List webhook deliveries",
		Description: "Returns a page of one webhook's deliveries, newest first, as GET /v1/webhooks/{id}/deliveries: " +
			"event type, status (pending, succeeded, failed), attempts, last status code, response time, next retry " +
			"and last error, with pagination (next_cursor, has_more).",
		Scopes: []auth.Scope{auth.ScopeWebhooksRead}, Hints: readOnly,
		Docs: map[string]string{"org": orgDoc, "id": idDoc("webhook"),
			"limit":  "Page size, 1 to 100; 50 when omitted.",
			"cursor": "pagination.next_cursor of the previous page."},
		Required: []string{"id"}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *deliveriesArgs) (any, error) {
			id, err := parseID(in.ID)
			if err != nil {
				return nil, err
			}
			q := webhook.DeliveryQuery{Cursor: in.Cursor}
			if in.Limit != nil {
				if *in.Limit == 0 {
					return nil, errcode.Field("limit", "must be from 1 to 100")
				}
				q.Limit = *in.Limit
			}
			page, err := h.opts.Webhooks.Deliveries(ctx, p, id, q)
			if err != nil {
				return nil, err
			}
			out := deliveryList{Data: page.Data, Pagination: cursorPage{HasMore: page.HasMore}}
			if out.Data == nil {
				out.Data = []webhook.Delivery{}
			}
			if page.HasMore {
				out.Pagination.NextCursor = &page.NextCursor
			}
			return out, nil
		}),
	define(toolSpec{Name: "get_analytics", Title: "Get click analytics",
		Description: "Returns click analytics as GET /v1/analytics/timeseries (kind timeseries: data with start, " +
			"clicks and installs per bucket, every bucket present, total and window) or GET /v1/analytics/breakdown " +
			"(kind breakdown: the top values of a dimension with clicks and installs, other, total and window). " +
			"installs counts installs attributed to the window's clicks; total.unstored_clicks counts clicks past " +
			"the monthly allowance that were counted but not stored (null when filtered).",
		Scopes: []auth.Scope{auth.ScopeAnalyticsRead}, Hints: readOnly, Docs: analyticsDocs, Required: []string{"kind"}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *analyticsArgs) (any, error) {
			return in.run(ctx, h.opts.Analytics, p)
		}),
	define(toolSpec{Name: "export_clicks", Title: "Export clicks",
		Description: "Starts a CSV export of the organization's stored clicks, as POST /v1/analytics/exports, or with " +
			"an id polls one, as GET /v1/analytics/exports/{id}. Returns the export: status pending, running, complete " +
			"or failed, rows, and once complete a download_url that serves the CSV for 24 hours to a GET with an API " +
			"key holding analytics:read.",
		Scopes: []auth.Scope{auth.ScopeAnalyticsRead}, Hints: creating,
		Docs: exportDocs},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *exportClicksArgs) (any, error) {
			if in.ID != nil {
				if in.From != nil || in.To != nil || in.Filter != (analytics.Filter{}) {
					return nil, errcode.Field("id", "polls an export: send it without from, to or filters")
				}
				id, err := parseID(*in.ID)
				if err != nil {
					return nil, err
				}
				return h.opts.Exports.Get(ctx, p, id)
			}
			start := analytics.StartExportInput{Filter: in.Filter}
			var fields []errcode.FieldError
			for _, at := range []struct {
				name string
				text *string
				dst  **time.Time
			}{{"from", in.From, &start.From}, {"to", in.To, &start.To}} {
				if at.text == nil {
					continue
				}
				t, err := time.Parse(time.RFC3339Nano, *at.text)
				if err != nil {
					fields = append(fields, errcode.FieldError{Field: at.name, Message: "must be an RFC 3339 date-time"})
					continue
				}
				*at.dst = &t
			}
			if len(fields) > 0 {
				return nil, errcode.Validation(fields...)
			}
			return h.opts.Exports.Start(ctx, p, start)
		}),
	listOrganizations(define(toolSpec{Name: "list_organizations", Title: "List organizations",
		Description: "Returns the organizations this connection may act for (data: Organization[]): an API key's own " +
			"organization, an OAuth connection's chosen one, or every organization you belong to.",
		Scopes: []auth.Scope{auth.ScopeOrgRead}, Hints: readOnly,
		Docs: map[string]string{"org": "Id of one organization to return; all of them when omitted."}},
		func(ctx context.Context, h *Handler, p *auth.Principal, in *orgsArgs) (any, error) {
			o, err := h.opts.Orgs.Get(ctx, p, p.OrgID)
			if err != nil {
				return nil, err
			}
			return organizationList{Data: []*org.Organization{o}}, nil
		})),
}

// listOrganizations completes t, the list_organizations tool for one
// organization: an OAuth connection made for all of the user's
// organizations that names none lists every organization the user may
// act for, each as GET /v1/organizations/{id} returns it.
func listOrganizations(t tool) tool {
	single := t.run
	t.run = func(ctx context.Context, h *Handler, c *caller, args []byte) (any, error) {
		var in orgsArgs
		if err := strictjson.DecodeObject(args, &in); err != nil {
			return nil, err
		}
		if c.grant == nil || c.grant.OrgID != nil || in.Org != "" {
			return single(ctx, h, c, args)
		}
		ms, err := h.opts.Memberships.Memberships(ctx, c.grant.UserID)
		if err != nil {
			return nil, err
		}
		list := organizationList{Data: []*org.Organization{}}
		for _, m := range ms {
			o, err := h.opts.Orgs.Get(ctx, grantPrincipal(c.grant, c.scopes, m), m.OrgID)
			if errcode.CodeOf(err) == errcode.Forbidden {
				continue // the role does not read this organization
			}
			if err != nil {
				return nil, err
			}
			list.Data = append(list.Data, o)
		}
		return list, nil
	}
	return t
}

// call runs tool t for caller c with the call's arguments and returns its
// result: the REST response's JSON as structuredContent and text, or, when
// refused, a tool error whose text is the SPEC.md error envelope.
func (h *Handler) call(ctx context.Context, c *caller, t *tool, args json.RawMessage) *mcp.CallToolResult {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var out any
	err := argumentsObject(args)
	switch {
	case c.limited != nil:
		err = errcode.Newf(errcode.RateLimitExceeded,
			"rate limit reached: %d calls a minute per API key or connection; retry this call after %d seconds",
			c.limited.Limit, c.limited.RetryAfterSeconds()).
			WithDetail("retry_after_seconds", c.limited.RetryAfterSeconds())
	case err == nil:
		out, err = t.run(ctx, h, c, args)
	}
	if err == nil {
		b, merr := json.Marshal(out)
		if merr == nil {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(b),
				Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
		}
		err = fmt.Errorf("mcpserver: encoding the result of %s: %w", t.def.Name, merr)
	}
	status, body := httperr.Envelope(err)
	if status >= 500 {
		h.log.ErrorContext(ctx, "tool call failed", "tool", t.def.Name, "status", status, "err", err)
	}
	b, _ := json.Marshal(body)
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b),
		Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
