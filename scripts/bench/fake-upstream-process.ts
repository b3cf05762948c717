/** The test suite's fake provider as its own process, so benchmark load does not share its CPU. */
import { startFakeUpstream } from "../../test/support/fake-upstream";

const upstream = startFakeUpstream();
console.log(JSON.stringify({ url: upstream.url }));
process.on("SIGTERM", () => upstream.stop().then(() => process.exit(0)));
