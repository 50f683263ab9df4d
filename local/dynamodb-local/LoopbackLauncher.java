import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Starts DynamoDB Local on 127.0.0.1 and a free port chosen by the OS.
 *
 * DynamoDB Local has no bind-address option and rejects port 0, so the server is built from the usual
 * command line and its Jetty connector is re-pointed before start. Prints "LISTENING <port>" on stdout
 * once it accepts connections; exits when stdin closes, so it never outlives the Node process.
 */
public final class LoopbackLauncher {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    ServerConnector connector = null;
    for (Connector candidate : jetty.getConnectors()) {
      if (candidate instanceof ServerConnector) {
        connector = (ServerConnector) candidate;
        connector.setHost("127.0.0.1");
        connector.setPort(0);
      }
    }
    if (connector == null) throw new IllegalStateException("DynamoDB Local has no ServerConnector to re-bind");
    proxy.start();
    System.out.println("LISTENING " + connector.getLocalPort());
    System.out.flush();
    while (System.in.read() != -1) { /* parent alive */ }
    proxy.stop();
    System.exit(0);
  }
}
