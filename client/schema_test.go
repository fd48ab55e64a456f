package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
)

// schemaOf names the openapi.yaml schema of each request and response type:
// a component, a property of one (Component.property) for an inline object,
// or the answer of an operation ("GET /path") for an inline answer.
var schemaOf = map[reflect.Type]string{
	reflect.TypeFor[client.LinkList]():                "GET /links",
	reflect.TypeFor[client.AppList]():                 "GET /apps",
	reflect.TypeFor[client.KeyList]():                 "GET /keys",
	reflect.TypeFor[client.DomainList]():              "GET /domains",
	reflect.TypeFor[client.MemberList]():              "GET /members",
	reflect.TypeFor[client.InvitationList]():          "GET /invitations",
	reflect.TypeFor[client.ClickExportList]():         "GET /analytics/exports",
	reflect.TypeFor[client.InstallList]():             "GET /installs",
	reflect.TypeFor[client.AttributionAttemptList]():  "GET /attribution/attempts",
	reflect.TypeFor[client.SDKKeyValidation]():        "GET /sdk/validate",
	reflect.TypeFor[client.Link]():                    "Link",
	reflect.TypeFor[client.LinkWithRedirects]():       "LinkWithRedirects",
	reflect.TypeFor[client.Redirect]():                "Redirect",
	reflect.TypeFor[client.LinkParamConfig]():         "LinkParamConfig",
	reflect.TypeFor[client.InjectedParam]():           "InjectedParam",
	reflect.TypeFor[client.Forwarding]():              "Forwarding",
	reflect.TypeFor[client.CreateLinkRequest]():       "CreateLinkRequest",
	reflect.TypeFor[client.UpdateLinkRequest]():       "UpdateLinkRequest",
	reflect.TypeFor[client.MoveChoiceRequest]():       "MoveChoiceRequest",
	reflect.TypeFor[client.MoveChoice]():              "MoveChoice",
	reflect.TypeFor[client.App]():                     "App",
	reflect.TypeFor[client.CreateAppRequest]():        "CreateAppRequest",
	reflect.TypeFor[client.UpdateAppRequest]():        "UpdateAppRequest",
	reflect.TypeFor[client.SubdomainState]():          "SubdomainState",
	reflect.TypeFor[client.RenamePeriod]():            "SubdomainState.rename_period",
	reflect.TypeFor[client.PreviousLinks]():           "SubdomainState.previous_links",
	reflect.TypeFor[client.RenameSubdomainRequest]():  "RenameSubdomainRequest",
	reflect.TypeFor[client.APIKey]():                  "ApiKey",
	reflect.TypeFor[client.CreatedKey]():              "ApiKeyWithRaw",
	reflect.TypeFor[client.CreateKeyRequest]():        "CreateKeyRequest",
	reflect.TypeFor[client.Organization]():            "Organization",
	reflect.TypeFor[client.OrgParameters]():           "OrgParameters",
	reflect.TypeFor[client.SecurityPolicy]():          "SecurityPolicy",
	reflect.TypeFor[client.AuditEvent]():              "AuditEvent",
	reflect.TypeFor[client.AuditEventList]():          "AuditEventList",
	reflect.TypeFor[client.Domain]():                  "Domain",
	reflect.TypeFor[client.DomainVerification]():      "DomainVerification",
	reflect.TypeFor[client.DNSDiagnostic]():           "DomainVerification.dns",
	reflect.TypeFor[client.TeamMember]():              "TeamMember",
	reflect.TypeFor[client.Invitation]():              "Invitation",
	reflect.TypeFor[client.CreatedInvitation]():       "CreatedInvitation",
	reflect.TypeFor[client.Webhook]():                 "Webhook",
	reflect.TypeFor[client.WebhookWithSecret]():       "WebhookWithSecret",
	reflect.TypeFor[client.WebhookList]():             "WebhookList",
	reflect.TypeFor[client.CreateWebhookRequest]():    "CreateWebhookRequest",
	reflect.TypeFor[client.UpdateWebhookRequest]():    "UpdateWebhookRequest",
	reflect.TypeFor[client.WebhookDelivery]():         "WebhookDelivery",
	reflect.TypeFor[client.WebhookDeliveryList]():     "WebhookDeliveryList",
	reflect.TypeFor[client.ResolvedLink]():            "ResolvedLink",
	reflect.TypeFor[client.MatchRequest]():            "MatchRequest",
	reflect.TypeFor[client.MatchResponse]():           "MatchResponse",
	reflect.TypeFor[client.Install]():                 "Install",
	reflect.TypeFor[client.AttributionAttempt]():      "AttributionAttempt",
	reflect.TypeFor[client.AttemptCandidates]():       "AttributionAttempt.candidates",
	reflect.TypeFor[client.Window]():                  "ListWindow",
	reflect.TypeFor[client.Pagination]():              "Pagination",
	reflect.TypeFor[client.CursorPagination]():        "CursorPagination",
	reflect.TypeFor[client.AnalyticsTotals]():         "AnalyticsTotals",
	reflect.TypeFor[client.AnalyticsCounts]():         "AnalyticsCounts",
	reflect.TypeFor[client.AnalyticsTimeseries]():     "AnalyticsTimeseries",
	reflect.TypeFor[client.AnalyticsBreakdown]():      "AnalyticsBreakdown",
	reflect.TypeFor[client.ClickExportFilters]():      "ClickExportFilters",
	reflect.TypeFor[client.StartClickExportRequest](): "StartClickExportRequest",
	reflect.TypeFor[client.ClickExport]():             "ClickExport",
	reflect.TypeFor[client.FieldError]():              "FieldError",
}

// properties returns the properties of s, its allOf and oneOf parts
// merged, with whether each is nullable.
func properties(s *openapi3.Schema) map[string]bool {
	props := map[string]bool{}
	for name, p := range s.Properties {
		props[name] = p.Value.Nullable
	}
	for _, parts := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf} {
		for _, part := range parts {
			for name, nullable := range properties(part.Value) {
				props[name] = props[name] || nullable
			}
		}
	}
	return props
}

// jsonFields returns the JSON fields of t (embedded structs flattened)
// with their Go types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			for name, typ := range jsonFields(f.Type) {
				fields[name] = typ
			}
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		fields[name] = f.Type
	}
	return fields
}

// canBeNull reports whether a field of type t can hold JSON null.
func canBeNull(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return strings.HasPrefix(t.Name(), "Nullable[")
}

// TestTypesMatchTheDocument proves that every request and response type
// has exactly the JSON fields of its openapi.yaml schema, and that every
// nullable field can hold null.
func TestTypesMatchTheDocument(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../httpapi/openapi.yaml")
	require.NoError(t, err)
	for typ, name := range schemaOf {
		t.Run(typ.Name(), func(t *testing.T) {
			s := schemaNamed(t, doc, name)
			want := properties(s)
			got := jsonFields(typ)
			assert.ElementsMatch(t, keys(want), keys(got), "the JSON fields of %s are those of %s", typ.Name(), name)
			for field, nullable := range want {
				if ft, ok := got[field]; ok && nullable {
					assert.True(t, canBeNull(ft), "%s.%s is nullable: a pointer, slice, map or Nullable", typ.Name(), field)
				}
			}
		})
	}
}

// schemaNamed finds the schema schemaOf names.
func schemaNamed(t *testing.T, doc *openapi3.T, name string) *openapi3.Schema {
	t.Helper()
	if method, path, ok := strings.Cut(name, " "); ok {
		op := doc.Paths.Find(path).GetOperation(method)
		require.NotNil(t, op, name)
		return op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	}
	component, prop, inline := strings.Cut(name, ".")
	ref := doc.Components.Schemas[component]
	require.NotNil(t, ref, name)
	if !inline {
		return ref.Value
	}
	require.Contains(t, ref.Value.Properties, prop)
	return ref.Value.Properties[prop].Value
}

// TestEveryTypeIsChecked proves that schemaOf names every exported struct
// type of the package that has JSON fields, so that none escapes
// TestTypesMatchTheDocument.
func TestEveryTypeIsChecked(t *testing.T) {
	checked := map[string]bool{}
	for typ := range schemaOf {
		checked[typ.Name()] = true
	}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag != nil && strings.Contains(field.Tag.Value, `json:"`) && !strings.Contains(field.Tag.Value, `json:"-"`) {
					assert.True(t, checked[ts.Name.Name], "type %s has JSON fields but no schema in schemaOf", ts.Name.Name)
					break
				}
			}
			return true
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
