package dev.onebotgateway.client;

import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.EventServiceGrpc;
import dev.onebotgateway.v1.StreamEventsRequest;
import dev.onebotgateway.v1.StreamEventsResponse;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The events of {@link Client#events}: an iterator that resumes by itself. When the connection
 * breaks (a proxy or the network restarted: UNAVAILABLE, INTERNAL, UNKNOWN, CANCELLED), the
 * gateway drops the stream for lagging, or a standby gateway refuses it (UNAVAILABLE {@code
 * NOT_LEADER}, after its RetryInfo delay), it reconnects with {@code after_sequence} set to the last
 * event it returned (or the last heartbeat's position), with backoff (100 ms doubling to 5 s,
 * {@link #MAX_RECONNECTS} attempts in a row), and returns every event once. Heartbeats are never
 * returned. {@code hasNext} is false when the gateway ends the stream; {@link #close} (or
 * cancelling the {@link Context} it was created in) stops it.
 */
public final class EventStream implements Iterator<Event>, AutoCloseable {
  /** Reconnect attempts in a row before the error reaches the caller. */
  public static final int MAX_RECONNECTS = 10;

  private final Channel channel;
  private final StreamEventsRequest request;
  private final Context parent;
  private Context.CancellableContext context;
  private Iterator<StreamEventsResponse> responses;
  private Long position;
  private Event next;
  private int failures;
  private int reconnects;
  private boolean ended;

  EventStream(Channel channel, StreamEventsRequest request) {
    this.channel = channel;
    this.request = request;
    this.parent = Context.current();
    this.position = request.hasAfterSequence() ? request.getAfterSequence() : null;
    open();
  }

  private void open() {
    StreamEventsRequest.Builder req = request.toBuilder();
    if (position != null) {
      req.setAfterSequence(position);
    }
    StreamEventsRequest built = req.build();
    context = parent.withCancellation();
    Context previous = context.attach();
    try {
      responses = EventServiceGrpc.newBlockingStub(channel).streamEvents(built);
    } finally {
      context.detach(previous);
    }
  }

  @Override
  public boolean hasNext() {
    while (next == null && !ended) {
      if (responses == null) {
        open();
      }
      try {
        if (!responses.hasNext()) {
          ended = true;
          break;
        }
        StreamEventsResponse r = responses.next();
        failures = 0;
        if (r.hasHeartbeat()) {
          long beat = r.getHeartbeat().getLastSequence();
          if (position == null || Long.compareUnsigned(beat, position) > 0) {
            position = beat;
          }
        }
        if (r.hasEvent()
            && (position == null || Long.compareUnsigned(r.getEvent().getSequence(), position) > 0)) {
          next = r.getEvent();
          position = next.getSequence();
        }
      } catch (RuntimeException e) {
        responses = null;
        context.cancel(null);
        GatewayException err = GatewayException.from(e);
        if (ended || parent.isCancelled() || !resumable(err) || failures >= MAX_RECONNECTS) {
          ended = true;
          throw err;
        }
        failures++;
        reconnects++;
        try {
          // A standby's NOT_LEADER refusal says when the leader may be there (RetryInfo).
          Duration wait =
              err.isNotLeader() ? err.retryDelay().orElse(backoff(failures)) : backoff(failures);
          Thread.sleep(wait.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          ended = true;
          throw err;
        }
      }
    }
    return next != null;
  }

  @Override
  public Event next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the event stream ended");
    }
    Event event = next;
    next = null;
    return event;
  }

  /** How many times the stream reconnected after a broken connection. */
  public int reconnects() {
    return reconnects;
  }

  /** Cancels the stream. */
  @Override
  public void close() {
    ended = true;
    if (context != null) {
      context.cancel(null);
    }
  }

  /**
   * True for a broken connection, for a subscriber the gateway dropped for lagging, and for a
   * standby's refusal (UNAVAILABLE {@code NOT_LEADER}).
   */
  static boolean resumable(GatewayException err) {
    Status.Code code = err.code();
    return switch (code) {
      case UNAVAILABLE, INTERNAL, UNKNOWN, CANCELLED -> true;
      case RESOURCE_EXHAUSTED -> err.reason().filter("EVENT_STREAM_LAGGED"::equals).isPresent();
      default -> false;
    };
  }

  /** The wait before attempt {@code n} (from 1): 100 ms doubling to 5 s, up to half off at random. */
  static Duration backoff(int n) {
    long base = Math.min(100L << Math.min(n - 1, 6), 5000L);
    return Duration.ofMillis(base - ThreadLocalRandom.current().nextLong(base / 2 + 1));
  }
}
