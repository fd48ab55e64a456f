package web

// RecordList fills PageDashboardInstalls: the installs list or the
// attribution attempts list, one tab each, with the filters the API's
// lists take and pages through their cursors.
type RecordList struct {
	// Attempts says that the attempts tab is shown (else the installs).
	Attempts bool
	// InstallsPath and AttemptsPath are the tabs; AttemptsPath is "" when
	// the role reads no attempt.
	InstallsPath, AttemptsPath string
	// App, Link, Matched, From and To are the filters as sent, kept in the
	// form; Link is the installs' only, Matched the attempts'.
	App, Link, Matched, From, To string
	Apps, MatchedOptions         []Option
	// Window says which window was read, after the plan's clamping ("" when
	// the page was refused).
	Window   string
	Installs []InstallRow
	Tries    []AttemptRow
	// Prev, Next and First are the neighbouring pages and the first one;
	// "" when none.
	Prev, Next, First string
	// Filtered says that a filter is set: the empty list says so.
	Filtered bool
	// Own says that the list holds only the installs of the member's own
	// links, as their role reaches no other.
	Own bool
}

// InstallRow is one install of the list.
type InstallRow struct {
	Path, Installed, Link, LinkPath, App, Match string
	// Reinstall is "Yes", "No" or "Unknown".
	Reinstall string
}

// AttemptRow is one attempt of the list.
type AttemptRow struct {
	Path, Created, Platform, App string
	// Outcome is "Matched" or "Not matched"; Summary says why in a few
	// words.
	Matched          bool
	Outcome, Summary string
}

// RecordDetail fills PageDashboardRecord: one install or one attempt, its
// facts and the explanation of how it was matched, or why not.
type RecordDetail struct {
	// Kind is "install" or "attempt".
	Kind string
	// Facts are label and value pairs, in order.
	Facts [][2]string
	// LinkTitle and LinkPath name the link an install delivered; "" when
	// none is known (LinkGone says that it was deleted).
	LinkTitle, LinkPath string
	LinkGone            bool
	// Explanation says in sentences how the attempt matched, or why it did
	// not; on an install's page, how its claim matched.
	Explanation []string
	// Signals are the signals that decided, each in words.
	Signals []string
	// Attempts are an install's attempts (the claim and its replays).
	Attempts []AttemptRow
	// InstallPath is an attempt's install; ListPath the list it is in.
	InstallPath, ListPath string
}
