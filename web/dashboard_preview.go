package web

// LinkPreview fills the link form's preview card: how a chat app or a
// social site shows the short URL when it is shared, drawn on the server
// from the form's values (so that it is right after a submission, without
// JavaScript) and redrawn by PreviewScript as the member types.
//
// The card never loads the preview image: the dashboard's CSP allows images
// from data: URLs alone, and an image from a URL that anyone with the form
// typed would tell that host who opens the form (docs/decisions.md). It
// names the image's host instead.
type LinkPreview struct {
	// Group is the legend of the form's field group the card follows.
	Group string
	// Title is what the link domain's preview page puts in og:title: the
	// preview title, else the link's name, else its destination; "" when
	// the form has none of them yet.
	Title       string
	Description string
	// ImageHost is the host of the preview image's URL; "" when there is
	// no image or its URL is not an http or https URL.
	ImageHost string
	// Domain is the short URL's domain as the form chooses it now.
	Domain string
	// DefaultDomain is the domain when the form chooses neither a domain
	// nor an app (the service's default link domain) and, on the edit form,
	// the link's own domain, which never changes.
	DefaultDomain string
	// AppDomains are the default link domain of each app the form offers,
	// as "app-id=domain" separated by spaces, for the script: choosing an
	// app chooses its domain when the domain is left to the default.
	AppDomains string
}

// EmptyTitle is the card's title while the form has no title, name or
// destination.
func (LinkPreview) EmptyTitle() string { return previewEmptyTitle }

// The words the card and PreviewScript share.
const (
	previewEmptyTitle = "The title appears here"
	previewNoImage    = "No image"
	previewImageFrom  = "Image from "
)

// NoImage is the card's image box when there is no image.
func (LinkPreview) NoImage() string { return previewNoImage }

// ImageFrom comes before the image's host in the card's image box.
func (LinkPreview) ImageFrom() string { return previewImageFrom }

// PreviewScript is the link form's second script: it redraws the preview
// card (LinkPreview) from the form's fields on every input, with the rules
// the server draws it with. It writes text only (textContent), never
// markup, and loads nothing. DashboardPolicy allows it by its hash.
const PreviewScript = `(function(){var c=document.getElementById('preview-card');if(!c)return;` +
	`function val(id){var e=document.getElementById(id);return e?e.value.trim():''}` +
	`function put(id,t){var e=document.getElementById(id);if(e)e.textContent=t}` +
	`function host(u){if(!/^https?:\/\//i.test(u))return '';try{return new URL(u).host}catch(e){return ''}}` +
	`var apps={};(c.getAttribute('data-apps')||'').split(' ').forEach(function(p){var i=p.indexOf('=');if(i>0)apps[p.slice(0,i)]=p.slice(i+1)});` +
	`function draw(){put('preview-title',val('f-og_title')||val('f-name')||val('f-destination_url')||'` + previewEmptyTitle + `');` +
	`put('preview-description',val('f-og_description'));` +
	`var h=host(val('f-og_image_url'));put('preview-image',h?'` + previewImageFrom + `'+h:'` + previewNoImage + `');` +
	`var d=c.getAttribute('data-domain');if(document.getElementById('f-domain'))d=val('f-domain')||apps[val('f-app_id')]||d;put('preview-domain',d)}` +
	`['f-og_title','f-name','f-destination_url','f-og_description','f-og_image_url','f-domain','f-app_id'].forEach(function(id){` +
	`var e=document.getElementById(id);if(e){e.addEventListener('input',draw);e.addEventListener('change',draw)}})})()`
