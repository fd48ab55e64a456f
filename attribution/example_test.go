package attribution_test

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/attribution"
)

// An install scored against the clicks on its IP key with the pure scorer:
// the iPhone that clicked five minutes before matches; the iPad is
// contradicted by its model.
func ExampleModel_Score() {
	at := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	clicks := []attribution.Click{
		{ID: uuid.MustParse("00000000-0000-0000-0000-000000000001"), OccurredAt: at.Add(-5 * time.Minute), Platform: "ios",
			OSVersion: "18.6", DeviceModel: "iPhone", UserAgent: "iphone-safari", AcceptLanguage: "fr-FR"},
		{ID: uuid.MustParse("00000000-0000-0000-0000-000000000002"), OccurredAt: at.Add(-3 * time.Minute), Platform: "ios",
			OSVersion: "18.6", DeviceModel: "iPad", UserAgent: "ipad-safari", AcceptLanguage: "fr-FR"},
	}
	install := attribution.Signals{OSVersion: "18.6", Model: "iPhone", Language: "fr-fr"}
	sessions := attribution.SessionsOf(clicks, attribution.ClaimSessionWindow)
	scored := attribution.DefaultModel.Score(install, at, sessions, attribution.NewBackground(sessions))
	for _, s := range scored {
		fmt.Printf("%s p=%.3f %v\n", sessions[s.Session].Latest().DeviceModel, s.Probability, s.Decisive())
	}
	d := attribution.Decide(scored)
	fmt.Println("matched:", d.Matched)
	// Output:
	// iPhone p=0.971 [time ip]
	// iPad p=0.000 [time ip device_model]
	// matched: true
}
