// An editor nobody at kigi wrote: the official ACP TypeScript SDK's client, driving
// `kigi acp` (KIGI_BIN) in the folder REPO through one scenario (argv[2]). It prints one JSON
// object with what it saw; the Rust test (crates/kigi-cli/tests/acp.rs) asserts on it.
// Every wait has a ceiling; a scenario that cannot finish fails with the step it was on.
//
// The client offers fs/read_text_file (answered from disk) and fs/write_text_file (recorded,
// never written: a file on disk then proves kigi wrote it itself).

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { readFileSync } from "node:fs";

const CEILING_MS = 30_000;
const scenario = process.argv[2];
const BIN = process.env.KIGI_BIN;
const REPO = process.env.REPO;

function withCeiling(promise, what) {
  let timer;
  const ceiling = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), CEILING_MS);
  });
  return Promise.race([promise, ceiling]).finally(() => clearTimeout(timer));
}

/// One `kigi acp` process and what its client saw.
function startKigi(permissionAnswer) {
  const child = spawn(BIN, ["acp"], { cwd: REPO, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const seen = { updates: [], extensions: [], permissions: [], fsWrites: [], fsReads: [] };
  const waiters = [];
  const wake = () => {
    for (const waiter of [...waiters]) {
      if (waiter.test()) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const until = (test, what) => {
    if (test()) return Promise.resolve();
    return withCeiling(new Promise((resolve) => waiters.push({ test, resolve })), what);
  };
  const app = client({ name: "kigi-acp-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      seen.updates.push(params);
      wake();
    })
    .onNotification("*", ({ method, params }) => {
      seen.extensions.push({ method, params });
      wake();
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      seen.permissions.push(params);
      wake();
      return { outcome: { outcome: "selected", optionId: permissionAnswer } };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      seen.fsWrites.push({ path: params.path, content: params.content });
      wake();
      return {};
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      seen.fsReads.push(params.path);
      return { content: readFileSync(params.path, "utf8") };
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const run = (op) => app.connectWith(stream, op);
  const stop = async () => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), CEILING_MS);
    const status = await exited;
    clearTimeout(timer);
    return status;
  };
  return { run, seen, until, stop };
}

const CAPABILITIES = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };

async function initialize(ctx) {
  return withCeiling(
    ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: CAPABILITIES }),
    "initialize",
  );
}

async function newSession(ctx) {
  return withCeiling(ctx.request(methods.agent.session.new, { cwd: REPO, mcpServers: [] }), "session/new");
}

function prompt(ctx, sessionId, text) {
  return withCeiling(
    ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    `session/prompt ${text}`,
  );
}

/// Runs one prompt in a fresh session: what initialize, session/new and the prompt answered.
async function onePrompt(permissionAnswer, text, beforePrompt) {
  const kigi = startKigi(permissionAnswer);
  const result = await kigi.run(async (ctx) => {
    const init = await initialize(ctx);
    const session = await newSession(ctx);
    const before = beforePrompt ? await beforePrompt(ctx, session.sessionId, kigi) : null;
    const response = await prompt(ctx, session.sessionId, text);
    return { init, session, before, stopReason: response.stopReason };
  });
  const exit = await kigi.stop();
  return { ...result, ...kigi.seen, exit };
}

const scenarios = {
  // initialize, session/new, and an answer streamed in chunks.
  stream: () => onePrompt("allow_once", "#stream say hello"),
  // A tool call with its kind, location, kigi/tool meta and final content.
  tool: () => onePrompt("allow_once", "#tool read a.txt"),
  // A write that asks, is allowed, and lands through fs/write_text_file.
  write: () => onePrompt("allow_once", "#write take notes"),
  // A command the client rejects.
  deny: () => onePrompt("reject_once", "#deny touch a file"),
  // set_mode plan, then a write the mode refuses.
  plan: () =>
    onePrompt("allow_once", "#plan write anyway", async (ctx, sessionId, kigi) => {
      const answer = await withCeiling(
        ctx.request(methods.agent.session.setMode, { sessionId, modeId: "plan" }),
        "session/set_mode",
      );
      await kigi.until(
        () => kigi.seen.updates.some((u) => u.update.sessionUpdate === "current_mode_update"),
        "current_mode_update",
      );
      return answer;
    }),
  // A subagent's _kigi/session/update notifications.
  subagent: () => onePrompt("allow_once", "#parent delegate"),
  // session/cancel mid-turn: the prompt ends `cancelled`.
  cancel: async () => {
    const kigi = startKigi("allow_once");
    const result = await kigi.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx);
      const answer = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "#cancel talk forever" }],
      });
      await kigi.until(
        () => kigi.seen.updates.some((u) => u.update.sessionUpdate === "agent_message_chunk"),
        "the first chunk",
      );
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      const response = await withCeiling(answer, "the cancelled prompt's answer");
      return { stopReason: response.stopReason };
    });
    const exit = await kigi.stop();
    return { ...result, ...kigi.seen, exit };
  },
  // A session answered in one process, loaded (replayed) and continued in the next.
  load: async () => {
    const first = startKigi("allow_once");
    const { sessionId } = await first.run(async (ctx) => {
      await initialize(ctx);
      const session = await newSession(ctx);
      await prompt(ctx, session.sessionId, "#load first question");
      return session;
    });
    const firstExit = await first.stop();
    const second = startKigi("allow_once");
    const result = await second.run(async (ctx) => {
      const init = await initialize(ctx);
      const loaded = await withCeiling(
        ctx.request(methods.agent.session.load, { sessionId, cwd: REPO, mcpServers: [] }),
        "session/load",
      );
      const replayed = second.seen.updates.length;
      const response = await prompt(ctx, sessionId, "second question");
      return { init, loaded, replayed, stopReason: response.stopReason };
    });
    const exit = await second.stop();
    return { sessionId, firstExit, ...result, ...second.seen, exit };
  },
};

try {
  const run = scenarios[scenario];
  if (!run) throw new Error(`unknown scenario ${scenario}`);
  const result = await run();
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(0);
} catch (error) {
  process.stderr.write(`acp client: ${error?.stack ?? error}\n`);
  process.exit(1);
}
