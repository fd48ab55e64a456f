// Package passwordpolicy decides whether a password may be chosen for a
// Hoplink user account: at least MinLength and at most MaxLength characters,
// not one of the most common passwords (an embedded list of a few thousand
// entries of ten characters or more, compared case-insensitively), and not
// the account's email address or its local part.
//
// It is a leaf package on purpose: package org calls it when a user is
// created and package account when a password changes, and account imports
// org, so the policy can live in neither. It imports errcode and the
// standard library only, does no I/O beyond reading its embedded list once,
// and reads no clock.
package passwordpolicy
