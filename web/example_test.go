package web_test

import (
	"fmt"

	"github.com/hoplink/hoplink/web"
)

func ExampleGroup() {
	fmt.Println(web.Group("JBSWY3DPEHPK3PXPJB", 4))
	// Output: JBSW Y3DP EHPK 3PXP JB
}

func ExampleDescribeScopes() {
	for _, p := range web.DescribeScopes([]string{"links:read", "org:delete"}) {
		fmt.Printf("%s: %s (destructive: %v)\n", p.Scope, p.Description, p.Destructive)
	}
	// Output:
	// links:read: See your links and their settings (destructive: false)
	// org:delete: Delete the whole organization and all its data (destructive: true)
}
