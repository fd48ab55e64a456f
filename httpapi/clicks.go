package httpapi

import (
	"context"

	"github.com/hoplink/hoplink/analytics"
)

// ClickRecorder takes clicks without waiting; analytics.Recorder is one.
type ClickRecorder interface {
	Record(c analytics.Click) bool
}

// RecordClicks returns a LinkDomainOptions.OnRedirect hook that records one
// click with source "redirect" for every redirect of a real visitor (bots,
// 404s, 410s and the password form record nothing, because the handler calls
// the hook only for redirects).
func RecordClicks(rec ClickRecorder) func(context.Context, RedirectEvent) {
	return func(_ context.Context, ev RedirectEvent) {
		rec.Record(ClickFromRedirect(ev))
	}
}

// ClickFromRedirect turns a redirect into the click it records.
func ClickFromRedirect(ev RedirectEvent) analytics.Click {
	utm := ev.UTM
	c := analytics.Click{
		ID:             ev.ClickID,
		Domain:         ev.Domain,
		OccurredAt:     ev.Time,
		Source:         analytics.SourceRedirect,
		Platform:       string(ev.Device.Platform),
		OS:             ev.Device.OS,
		OSVersion:      ev.Device.OSVersion,
		DeviceModel:    ev.Device.Model,
		Browser:        ev.Device.Browser,
		InAppBrowser:   ev.Device.App,
		UserAgent:      ev.UserAgent,
		AcceptLanguage: ev.AcceptLanguage,
		Referer:        ev.Referer,
		UTMSource:      utm.Source,
		UTMMedium:      utm.Medium,
		UTMCampaign:    utm.Campaign,
		UTMTerm:        utm.Term,
		UTMContent:     utm.Content,
	}
	if ev.ClientIP.IsValid() {
		c.IP = ev.ClientIP.String()
	}
	if ev.Link != nil {
		c.OrgID = ev.Link.OrgID
		c.LinkID = ev.Link.ID
		c.AppID = ev.Link.AppID
		c.Slug = ev.Link.Slug
	}
	if c.InAppBrowser == "" && ev.Device.InAppBrowser {
		c.InAppBrowser = "unknown"
	}
	return c
}
