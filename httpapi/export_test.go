package httpapi

// AnalyticsWindow is analyticsWindow, for the external tests.
var AnalyticsWindow = analyticsWindow
