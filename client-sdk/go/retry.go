package onebotgateway

import (
	"context"
	"math/rand/v2"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// DefaultNotLeaderRetryBudget is how long, in all, a unary call refused with Unavailable
// NOT_LEADER is retried unless Options say otherwise (leadership moves within about 10–15 s of
// a leader dying).
const DefaultNotLeaderRetryBudget = 30 * time.Second

// notLeaderRetry is the unary interceptor retrying NOT_LEADER refusals (and nothing else) for
// at most budget, never past the context's deadline: each retry waits the refusal's RetryInfo
// delay, or 250 ms doubling to 5 s with jitter when it has none. When the next wait would pass
// the budget or the deadline, the last refusal is returned.
func notLeaderRetry(budget time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		stop := time.Now().Add(budget)
		deadline, hasDeadline := ctx.Deadline()
		for attempt := 1; ; attempt++ {
			began := time.Now()
			err := invoker(ctx, method, req, reply, cc, opts...)
			s, ok := status.FromError(err)
			if err == nil || !ok {
				return err
			}
			refusal := FromStatus(s)
			if !refusal.IsNotLeader() {
				return err
			}
			wait := refusal.RetryDelay
			if wait <= 0 {
				wait = notLeaderBackoff(attempt)
			}
			// An attempt cut by the deadline would end in DeadlineExceeded: none is started that
			// would not finish in time, by the last one's duration.
			now := time.Now()
			if !now.Add(wait).Before(stop) || (hasDeadline && !now.Add(wait+now.Sub(began)).Before(deadline)) {
				return err
			}
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return err
			}
		}
	}
}

// notLeaderBackoff is the wait before retry n (from 1) of a NOT_LEADER refusal without
// RetryInfo: 250 ms doubling to 5 s, with up to half taken off at random.
func notLeaderBackoff(n int) time.Duration {
	base := min(250*time.Millisecond<<min(n-1, 6), 5*time.Second)
	return base - time.Duration(rand.Int64N(int64(base/2)+1))
}
