package dev.onebotgateway.client;

import dev.onebotgateway.v1.Account;
import java.io.IOException;
import java.util.List;

/**
 * The README's examples, one method per RPC. Everything between a {@code // region: <name>} and
 * {@code // endregion} line is copied verbatim into README.md (ReadmeTest checks it) and run by
 * E2eTest against a real gateway.
 */
final class ReadmeExamples {
  private ReadmeExamples() {}

  static Client connect() throws IOException {
    // region: connect
    String addr = System.getenv().getOrDefault("ONEBOT_GATEWAY_ADDR", "http://127.0.0.1:50051");
    Client client =
        Client.builder(addr)
            .token(System.getenv("ONEBOT_GATEWAY_TOKEN")) // sent as "authorization: Bearer <token>"
            // For TLS: an https:// address, plus .caFile(Path.of("ca.pem")) for a private CA.
            .build();
    // endregion
    return client;
  }

  static String health(Client client) {
    // region: health
    String status = client.health(""); // or "onebot.gateway.v1.account.default"
    System.out.println("gateway: " + status); // SERVING
    // endregion
    return status;
  }

  static List<Account> accounts(Client client) {
    // region: accounts
    List<Account> accounts = client.accounts();
    for (Account account : accounts) {
      System.out.println(account.getAccountId() + " " + account.getNickname() + " " + account.getGroupsList());
    }
    // endregion
    return accounts;
  }
}
