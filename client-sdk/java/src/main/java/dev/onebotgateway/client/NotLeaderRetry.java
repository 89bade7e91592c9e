package dev.onebotgateway.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Retries a unary call a standby gateway refused with {@code UNAVAILABLE} {@code NOT_LEADER}
 * (under {@code [ha]} only the account's leader serves it; the standby did nothing, so a retry is
 * always safe), and no other error, for at most the budget and never past the call's deadline:
 * each retry waits the refusal's {@code RetryInfo} delay, or 250 ms doubling to 5 s with jitter.
 * When the next wait would pass either, the last refusal is the call's result. Streaming calls
 * pass through: the event stream resumes after {@code NOT_LEADER} by itself, uploads and
 * downloads are not retried. {@link Client.Builder#notLeaderRetry} configures the client's.
 */
public final class NotLeaderRetry implements ClientInterceptor {
  /** How long a refused call is retried in all unless the builder says otherwise. */
  public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(30);

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "onebot-gateway-not-leader-retry");
            t.setDaemon(true);
            return t;
          });

  private final Duration budget;

  /** Retries for at most {@code budget} in all (zero: never). */
  public NotLeaderRetry(Duration budget) {
    this.budget = budget;
  }

  /**
   * The wait before retry {@code n} (from 1) without RetryInfo: 250 ms doubling to 5 s, up to half
   * off at random.
   */
  static Duration backoff(int n) {
    long base = Math.min(250L << Math.min(n - 1, 6), 5000L);
    return Duration.ofMillis(base - ThreadLocalRandom.current().nextLong(base / 2 + 1));
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
    boolean off = budget.isZero() || budget.isNegative();
    if (off || method.getType() != MethodDescriptor.MethodType.UNARY) {
      return next.newCall(method, options);
    }
    return new RetryingCall<>(method, options, next, System.nanoTime() + budget.toNanos());
  }

  /**
   * A unary call that keeps its request and headers, sends them on each attempt, and hands the
   * caller the first attempt that is not a {@code NOT_LEADER} refusal (or the last refusal).
   */
  private static final class RetryingCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallOptions options;
    private final Channel next;
    private final long stopNanos;
    private Listener<RespT> listener;
    private Metadata headers;
    private ReqT request;
    private int requested;
    private int attempts;
    private boolean closed;
    private ClientCall<ReqT, RespT> current;
    private ScheduledFuture<?> pending;
    private volatile long attemptStartNanos;

    RetryingCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next, long stopNanos) {
      this.method = method;
      this.options = options;
      this.next = next;
      this.stopNanos = stopNanos;
    }

    @Override
    public synchronized void start(Listener<RespT> listener, Metadata headers) {
      this.listener = listener;
      this.headers = headers;
    }

    @Override
    public synchronized void request(int numMessages) {
      requested += numMessages;
      if (current != null) {
        current.request(numMessages);
      }
    }

    @Override
    public synchronized void sendMessage(ReqT message) {
      request = message;
    }

    @Override
    public void halfClose() {
      attempt();
    }

    @Override
    public void cancel(String message, Throwable cause) {
      ClientCall<ReqT, RespT> running;
      boolean waiting;
      synchronized (this) {
        if (pending != null) {
          pending.cancel(false);
          pending = null;
        }
        running = current;
        waiting = running == null && !closed && listener != null;
        if (waiting) {
          closed = true;
        }
      }
      if (running != null) {
        running.cancel(message, cause);
      } else if (waiting) {
        // Cancelled between two attempts: the caller hears of it here.
        Status status = Status.CANCELLED.withDescription(message).withCause(cause);
        listener.onClose(status, new Metadata());
      }
    }

    @Override
    public synchronized boolean isReady() {
      return current != null && current.isReady();
    }

    private void attempt() {
      ClientCall<ReqT, RespT> call;
      Metadata sent = new Metadata();
      synchronized (this) {
        if (closed) {
          return;
        }
        pending = null;
        attempts++;
        attemptStartNanos = System.nanoTime();
        sent.merge(headers);
        call = next.newCall(method, options);
        current = call;
      }
      call.start(new Attempt(), sent);
      call.request(Math.max(requested, 1));
      call.sendMessage(request);
      call.halfClose();
    }

    /** One attempt's listener: holds its response until it is known not to be retried. */
    private final class Attempt extends ClientCall.Listener<RespT> {
      private Metadata responseHeaders;
      private RespT message;

      @Override
      public void onHeaders(Metadata headers) {
        responseHeaders = headers;
      }

      @Override
      public void onMessage(RespT message) {
        this.message = message;
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        Duration wait = retryWait(status, trailers);
        synchronized (RetryingCall.this) {
          if (wait != null && !closed) {
            current = null;
            pending = TIMER.schedule(RetryingCall.this::attempt, wait.toNanos(), TimeUnit.NANOSECONDS);
            return;
          }
          closed = true;
        }
        if (responseHeaders != null) {
          listener.onHeaders(responseHeaders);
        }
        if (message != null) {
          listener.onMessage(message);
        }
        listener.onClose(status, trailers);
      }

      @Override
      public void onReady() {
        listener.onReady();
      }
    }

    /** How long to wait before retrying after {@code status}; null when it is not retried. */
    private Duration retryWait(Status status, Metadata trailers) {
      if (status.getCode() != Status.Code.UNAVAILABLE) {
        return null;
      }
      GatewayException refusal = GatewayException.from(status.asRuntimeException(trailers));
      if (!refusal.isNotLeader()) {
        return null;
      }
      Duration wait = refusal.retryDelay().orElseGet(() -> backoff(attempts));
      long now = System.nanoTime();
      if (now + wait.toNanos() >= stopNanos) {
        return null;
      }
      // An attempt cut by the deadline would end in DEADLINE_EXCEEDED: none is started that would
      // not finish in time, by the last one's duration.
      long lastAttempt = now - attemptStartNanos;
      Deadline deadline = options.getDeadline();
      if (deadline != null
          && deadline.timeRemaining(TimeUnit.NANOSECONDS) <= wait.toNanos() + lastAttempt) {
        return null;
      }
      return wait;
    }
  }
}
