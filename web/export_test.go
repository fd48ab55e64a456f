package web

import "html/template"

// PageChartsSample is a page of the tests alone: the charts as a page
// shows them, so that the tests see them in the layout, under the
// stylesheet and the CSP.
const PageChartsSample = "charts-sample"

// ChartsSampleView fills PageChartsSample.
type ChartsSampleView struct {
	Frame
	Series     []TimeSeries
	Breakdowns []Breakdown
}

func init() {
	t := template.Must(base.Clone())
	pages[PageChartsSample] = template.Must(t.Parse(`{{define "content"}}` +
		`{{range .Series}}{{template "timeseries-chart" .}}{{end}}` +
		`{{range .Breakdowns}}{{template "breakdown-chart" .}}{{end}}{{end}}`))
}
