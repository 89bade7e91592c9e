package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.onebotgateway.v1.Account;
import dev.onebotgateway.v1.AccountServiceGrpc;
import dev.onebotgateway.v1.ListAccountsRequest;
import dev.onebotgateway.v1.ListAccountsResponse;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A standby gateway's refusal (UNAVAILABLE NOT_LEADER) is retried by the client: a stub
 * AccountService on a loopback port refuses the first calls, then answers. Offline.
 */
class NotLeaderRetryTest {
  /** Refuses the first {@code refusals} calls with UNAVAILABLE {@code reason}, then answers. */
  static final class Standby extends AccountServiceGrpc.AccountServiceImplBase {
    final AtomicInteger calls = new AtomicInteger();
    final int refusals;
    final String reason;
    final Duration retry;

    Standby(int refusals, String reason, Duration retry) {
      this.refusals = refusals;
      this.reason = reason;
      this.retry = retry;
    }

    @Override
    public void listAccounts(ListAccountsRequest request, StreamObserver<ListAccountsResponse> out) {
      if (calls.incrementAndGet() <= refusals) {
        com.google.rpc.Status.Builder status =
            com.google.rpc.Status.newBuilder()
                .setCode(Code.UNAVAILABLE_VALUE)
                .setMessage("another gateway leads account default")
                .addDetails(
                    Any.pack(
                        ErrorInfo.newBuilder()
                            .setReason(reason)
                            .setDomain(GatewayException.ERROR_DOMAIN)
                            .putMetadata("account_id", "default")
                            .putMetadata("leader", "gw-a")
                            .putMetadata("advertise", "10.0.0.1:50051")
                            .build()));
        if (retry != null) {
          status.addDetails(
              Any.pack(
                  RetryInfo.newBuilder()
                      .setRetryDelay(
                          com.google.protobuf.Duration.newBuilder().setNanos((int) retry.toNanos()))
                      .build()));
        }
        out.onError(StatusProto.toStatusRuntimeException(status.build()));
        return;
      }
      out.onNext(
          ListAccountsResponse.newBuilder()
              .addAccounts(Account.newBuilder().setAccountId("default"))
              .build());
      out.onCompleted();
    }
  }

  private final List<Server> servers = new ArrayList<>();
  private final List<Client> clients = new ArrayList<>();

  @AfterEach
  void stop() {
    clients.forEach(Client::close);
    servers.forEach(Server::shutdownNow);
  }

  private String serve(Standby standby) throws IOException {
    Server server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(standby)
            .build()
            .start();
    servers.add(server);
    return "http://127.0.0.1:" + server.getPort();
  }

  private Client client(Client.Builder builder) throws IOException {
    Client client = builder.build();
    clients.add(client);
    return client;
  }

  @Test
  void notLeaderIsRetriedUntilTheLeaderAnswers() throws IOException {
    Standby standby = new Standby(3, "NOT_LEADER", Duration.ofMillis(20));
    Client client = client(Client.builder(serve(standby)));
    assertEquals("default", client.accounts().get(0).getAccountId());
    assertEquals(4, standby.calls.get());
  }

  @Test
  void withoutRetryInfoTheBackoffStartsAt250Ms() throws IOException {
    Standby standby = new Standby(1, "NOT_LEADER", null);
    Client client = client(Client.builder(serve(standby)));
    long start = System.nanoTime();
    client.accounts();
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 125);
    assertEquals(2, standby.calls.get());
  }

  @Test
  void withRetryOffTheRefusalIsThrown() throws IOException {
    Standby standby = new Standby(1, "NOT_LEADER", Duration.ofMillis(20));
    Client client = client(Client.builder(serve(standby)).notLeaderRetry(Duration.ZERO));
    GatewayException err = assertThrows(GatewayException.class, client::accounts);
    assertTrue(err.isNotLeader());
    assertEquals(Status.Code.UNAVAILABLE, err.code());
    assertEquals("gw-a", err.leader().orElseThrow());
    assertEquals("10.0.0.1:50051", err.advertise().orElseThrow());
    assertEquals("default", err.metadata().get("account_id"));
    assertEquals(Duration.ofMillis(20), err.retryDelay().orElseThrow());
    assertEquals(1, standby.calls.get());
  }

  @Test
  void theBudgetAndTheDeadlineEndTheRetries() throws IOException {
    Standby standby = new Standby(Integer.MAX_VALUE, "NOT_LEADER", Duration.ofMillis(20));
    Client client =
        client(Client.builder(serve(standby)).notLeaderRetry(Duration.ofMillis(150)));
    GatewayException err = assertThrows(GatewayException.class, client::accounts);
    assertTrue(err.isNotLeader());
    int calls = standby.calls.get();
    assertTrue(calls >= 3 && calls <= 9, calls + " calls");
    Client timed = client(Client.builder(serve(standby)).timeout(Duration.ofMillis(100)));
    long start = System.nanoTime();
    err = assertThrows(GatewayException.class, timed::accounts);
    assertTrue(err.isNotLeader(), err.toString());
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 1000);
    assertTrue(standby.calls.get() - calls >= 2);
  }

  @Test
  void otherUnavailableReasonsAreNotRetried() throws IOException {
    Standby standby = new Standby(1, "ACCOUNT_OFFLINE", Duration.ofMillis(20));
    Client client = client(Client.builder(serve(standby)));
    GatewayException err = assertThrows(GatewayException.class, client::accounts);
    assertEquals("ACCOUNT_OFFLINE", err.reason().orElseThrow());
    assertFalse(err.isNotLeader());
    assertTrue(err.leader().isEmpty());
    assertEquals(1, standby.calls.get());
  }
}
