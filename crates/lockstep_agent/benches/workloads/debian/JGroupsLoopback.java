package lsbench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.ReceiverAdapter;

/**
 * Debian's jgroups (2.12) with two channels in one process over the
 * SHARED_LOOPBACK transport (no network): each member sends N messages to
 * the group from its own thread, and the run waits until both members have
 * received all 2N. A fixed, deterministic amount of work for the run-time
 * recording benchmark. Usage: JGroupsLoopback N
 */
public final class JGroupsLoopback {
    private static final String STACK = "SHARED_LOOPBACK:PING(timeout=100;num_initial_members=2):"
            + "pbcast.NAKACK(use_mcast_xmit=false):UNICAST:pbcast.STABLE:pbcast.GMS(join_timeout=500;print_local_addr=false):FRAG2";

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        CountDownLatch received = new CountDownLatch(4 * n);
        JChannel a = member("a", received);
        JChannel b = member("b", received);
        Thread[] senders = {sender(a, n), sender(b, n)};
        for (Thread t : senders) {
            t.start();
        }
        for (Thread t : senders) {
            t.join();
        }
        boolean all = received.await(60, TimeUnit.SECONDS);
        b.close();
        a.close();
        System.out.println("members=2 sent=" + (2 * n) + " all-received=" + all);
    }

    private static JChannel member(String name, CountDownLatch received) throws Exception {
        JChannel c = new JChannel(STACK);
        c.setName(name);
        c.setReceiver(new ReceiverAdapter() {
            @Override
            public void receive(Message msg) {
                received.countDown();
            }
        });
        c.connect("lsbench");
        return c;
    }

    private static Thread sender(JChannel c, int n) {
        return new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    c.send(new Message(null, null, "m" + i));
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "sender-" + c.getName());
    }
}
