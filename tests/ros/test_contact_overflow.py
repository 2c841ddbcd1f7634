"""More contacts than `collision.max_contacts` in a running node (issue 26, item 2): the
quadruped in `mode: sim+control` with `collision: {max_contacts: 2}` stands on four feet.
The simulator keeps the two deepest contacts and counts the others
(`contacts_dropped_total` on /diagnostics, and the window's message says so); the
controller refuses every tick whose contacts overflowed (`ticks_refused_total`), the safe
output applies, and the node keeps running."""

import time

from diagnostic_msgs.msg import DiagnosticArray

from conftest import NodeProcess, Recorder, diagnostic_values, wait_until
from test_modes import config


def test_an_overflow_is_reported_on_diagnostics_and_the_controller_refuses_its_ticks(ros, tmp_path):
    path = config(tmp_path, "overflow.yaml", "quadruped_sim_control.yaml",
                  append="collision: {max_contacts: 2}\n")
    node = NodeProcess("node", "--config", str(path))
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    try:
        node.wait_for_line("signorini: quadruped")

        def totals():
            items = diagnostics.snapshot()
            if not items:
                return None
            _, message, values = items[-1][1]
            return int(values["contacts_dropped_total"]), int(values["ticks_refused_total"]), message

        wait_until(lambda: totals() and totals()[0] > 0 and totals()[1] > 0, 20.0, "the overflow on /diagnostics")
        time.sleep(1.5)
        dropped, refused, _ = totals()
        messages = [m for _, (_, m, _) in diagnostics.snapshot()]
        print(f"contacts_dropped_total {dropped}, ticks_refused_total {refused}; e.g. {messages[-1]!r}")
        assert any("contacts dropped beyond collision.max_contacts" in m for m in messages), messages[-3:]
        assert any("controller ticks refused" in m for m in messages), messages[-3:]
        assert dropped > 100 and refused > 100
        assert node.alive()
    finally:
        ros.destroy_subscription(diagnostics.sub)
        code = node.stop()
    assert code == 0, node.output()
