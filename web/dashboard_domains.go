package web

// DomainList fills PageDashboardDomains: the organization's custom
// domains and the form that adds one.
type DomainList struct {
	Rows []DomainRow
	// Total is how many domains there are; From and To number the rows
	// shown; Prev and Next the neighbouring pages' URLs ("" when none).
	Total, From, To int
	Prev, Next      string
	// Plan says what the organization's plan allows ("" when not known).
	Plan string
	// NoPlan says that the plan has no custom domains at all.
	NoPlan bool
	// Add is the add form; nil when the role may not add domains or the
	// plan has none.
	Add *DomainForm
}

// DomainRow is one domain of the list.
type DomainRow struct {
	Path, Name string
	// State is "Pending verification", "Verified" or "Suspended"; Note
	// says what it means for the domain's links.
	State, Note string
}

// DomainForm is the add form of a domain, with the name as typed.
type DomainForm struct {
	Action, Domain, Error string
}

// DomainView fills PageDashboardDomain: a custom domain's state, the DNS
// record it needs and the answer of its last verification.
type DomainView struct {
	// Name is the domain as stored (ASCII); Unicode its Unicode form when
	// it differs ("" otherwise).
	Name, Unicode string
	// State is as in DomainRow; Verified and Suspended say which.
	State               string
	Verified, Suspended bool
	// Created, VerifiedAt and SuspendedAt are dates as shown ("" when
	// unset); Certificate says whether a certificate may be obtained.
	Created, VerifiedAt, SuspendedAt, Certificate string
	// SuspendedWhy says why the domain is suspended and what restores it.
	SuspendedWhy string
	// Record is the DNS record to create.
	Record DNSRecord
	// VerifyPath is the verification's action; "" when not offered (the
	// domain is verified, or the role may not).
	VerifyPath string
	// Check is the answer of the verification just asked for; nil when
	// none was.
	Check *DNSCheck
	// DeletePath is the delete confirmation; "" when the role may not.
	DeletePath, ListPath string
}

// DNSRecord is a DNS record as a provider's form asks for it.
type DNSRecord struct {
	Type, Name, Value string
}

// DNSCheck is an unsuccessful verification explained: what the DNS
// lookup asked, what it expected, what it found, in words.
type DNSCheck struct {
	// Asked is the name whose CNAME record was asked for.
	Asked string
	// Expected is the target the record must have; Found what the lookup
	// found, in words ("no CNAME record", a target, "no answer").
	Expected, Found string
	// Explanation says what that means and what to do; Message is the
	// verification service's own message.
	Explanation, Message string
}
