package httpapi

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/uptrace/bunrouter"
)

// OpenAPIYAML is the OpenAPI 3.0 document of the /v1 API.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte

var openAPI struct {
	once sync.Once
	doc  *openapi3.T
	json []byte
	err  error
}

// OpenAPI returns the parsed and validated OpenAPI document and its JSON form.
func OpenAPI() (*openapi3.T, []byte, error) {
	openAPI.once.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(OpenAPIYAML)
		if err == nil {
			err = doc.Validate(loader.Context)
		}
		if err != nil {
			openAPI.err = err
			return
		}
		openAPI.doc = doc
		openAPI.json, openAPI.err = json.Marshal(doc)
	})
	return openAPI.doc, openAPI.json, openAPI.err
}

// openAPI serves GET /v1/openapi.json without a key, limited per client IP.
func (a *API) openAPI(w http.ResponseWriter, req bunrouter.Request) error {
	if !a.anonymousLimit(w, req.Request) {
		return nil
	}
	if err := noQuery(req); err != nil {
		return err
	}
	_, body, err := OpenAPI()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(body)
	return nil
}
