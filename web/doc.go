// Package web renders every HTML page of Hoplink: the sign-in, account,
// two-factor and invitation pages and the OAuth consent and connections
// pages and the dashboard of the service host, and the password form, bot
// preview and error pages of the link domains.
//
// The pages are html/template files embedded from templates/*.html, each a
// "content" block inside one layout (templates/layout.html: language,
// viewport, title and one main landmark) and styled by one stylesheet
// (style.css: system fonts, light and dark by prefers-color-scheme, phone
// first). The stylesheet is inlined in every page and allowed by its hash in
// the Content-Security-Policy, so that a link domain, where every path
// could be a slug, needs no route of its own for it (docs/decisions.md).
//
// The analytics charts are drawn here too, as inline SVG from the view
// types TimeSeries and Breakdown (chart.go; their scales and calendar
// ticks in chart_scale.go): any page shows one with the templates of
// templates/parts/chart.html, a figure with a legend, the SVG and a table
// of the same numbers.
//
// The pages run no script but the dashboard's two, the copy button's
// (CopyScript) and the link form's preview card's (PreviewScript), allowed
// by their hashes under DashboardPolicy alone. Each only enhances a page
// that works without it.
//
// SetHeaders is the one place that sets a page's security headers and CSP.
// Handlers stay thin: they fill one of the view types declared here and
// call Render.
//
// web imports only the standard library: it knows nothing of services,
// storage or the REST API, and every adapter that shows a page may import it.
package web
