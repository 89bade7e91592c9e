package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onebotgateway.v1.Account;
import io.grpc.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** End-to-end: the Java SDK against a real gateway (scripts/sdk-tests.sh sets ONEBOT_GATEWAY_ADDR). */
class E2eTest {
  static Client client;

  @BeforeAll
  static void connect() throws IOException {
    assertNotNull(
        System.getenv("ONEBOT_GATEWAY_ADDR"), "ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh java");
    client = ReadmeExamples.connect();
  }

  @AfterAll
  static void close() {
    client.close();
  }

  @Test
  void health() {
    assertEquals("SERVING", ReadmeExamples.health(client));
    GatewayException err = assertThrows(GatewayException.class, () -> client.health("no.such.Service"));
    assertEquals(Status.Code.NOT_FOUND, err.code());
  }

  @Test
  void accounts() {
    List<Account> accounts = ReadmeExamples.accounts(client);
    assertEquals(accounts.size(), new HashSet<>(accounts.stream().map(Account::getAccountId).toList()).size());
  }

  @Test
  void unreachableGatewayIsAGatewayException() throws IOException {
    try (Client down = Client.builder("http://127.0.0.1:1").timeout(Duration.ofSeconds(5)).build()) {
      GatewayException err = assertThrows(GatewayException.class, down::accounts);
      assertEquals(Status.Code.UNAVAILABLE, err.code());
    }
  }
}
