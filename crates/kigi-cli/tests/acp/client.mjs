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
  const seen = { updates: [], extensions: [], permissions: [], fsWrites: [], fsReads: [], terminals: [], released: [] };
  // The editor's terminals (when CAPABILITIES offers them): real processes, their output kept.
  const terminals = new Map();
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
    })
    .onRequest(methods.client.terminal.create, ({ params }) => {
      const terminalId = `term-${terminals.size + 1}`;
      const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? REPO });
      const term = { output: "", exit: null };
      const append = (chunk) => (term.output += chunk.toString());
      proc.stdout.on("data", append);
      proc.stderr.on("data", append);
      term.exited = new Promise((resolve) =>
        proc.on("close", (code, signal) => {
          term.exit = { exitCode: code, signal };
          resolve(term.exit);
        }),
      );
      term.proc = proc;
      terminals.set(terminalId, term);
      seen.terminals.push({ terminalId, command: params.command, args: params.args, cwd: params.cwd });
      return { terminalId };
    })
    .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
      return await withCeiling(terminals.get(params.terminalId).exited, "the terminal's command");
    })
    .onRequest(methods.client.terminal.output, ({ params }) => {
      const term = terminals.get(params.terminalId);
      return { output: term.output, truncated: false, exitStatus: term.exit };
    })
    .onRequest(methods.client.terminal.kill, ({ params }) => {
      terminals.get(params.terminalId).proc.kill();
      return {};
    })
    .onRequest(methods.client.terminal.release, ({ params }) => {
      seen.released.push(params.terminalId);
      return {};
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

async function initialize(ctx, capabilities = CAPABILITIES) {
  return withCeiling(
    ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities }),
    "initialize",
  );
}

/// One prompt in a fresh session of a client that offers its terminal too.
async function onePromptWithTerminal(text) {
  const kigi = startKigi("allow_once");
  const result = await kigi.run(async (ctx) => {
    const init = await initialize(ctx, { ...CAPABILITIES, terminal: true });
    const session = await newSession(ctx);
    const response = await prompt(ctx, session.sessionId, text);
    return { init, session, stopReason: response.stopReason };
  });
  const exit = await kigi.stop();
  return { ...result, ...kigi.seen, exit };
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

/// A prompt's answer, or the JSON-RPC error it got.
async function promptOutcome(ctx, sessionId, blocks, what) {
  try {
    const response = await withCeiling(ctx.request(methods.agent.session.prompt, { sessionId, prompt: blocks }), what);
    return { stopReason: response.stopReason };
  } catch (error) {
    if (error?.code === undefined) throw error;
    return { error: { code: error.code, message: error.message, data: error.data } };
  }
}

// One pixel, a PNG.
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const scenarios = {
  // A command, with a client that offers its terminal (kigi decides whether to use it).
  terminal: () => onePromptWithTerminal("#terminal run it"),
  // The model option: set to an alias, then a bad name, then `/model` in a prompt.
  model: async () => {
    const kigi = startKigi("allow_once");
    const result = await kigi.run(async (ctx) => {
      await initialize(ctx);
      const session = await newSession(ctx);
      const { sessionId } = session;
      const set = (value) =>
        ctx.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value });
      const setFast = await withCeiling(set("fast"), "session/set_config_option fast");
      let bad = null;
      try {
        await withCeiling(set("  "), "session/set_config_option with a blank name");
      } catch (error) {
        if (error?.code === undefined) throw error;
        bad = { code: error.code, message: error.message, data: error.data };
      }
      const first = await prompt(ctx, sessionId, "#model which model answers");
      const slash = await prompt(ctx, sessionId, "/model raw-model-id");
      const second = await prompt(ctx, sessionId, "and now");
      return { session, setFast, bad, stopReasons: [first.stopReason, slash.stopReason, second.stopReason] };
    });
    const exit = await kigi.stop();
    return { ...result, ...kigi.seen, exit };
  },
  // The slash commands are announced; `/compact` with more text compacts, then runs it.
  commands: async () => {
    const kigi = startKigi("allow_once");
    const result = await kigi.run(async (ctx) => {
      await initialize(ctx);
      const session = await newSession(ctx);
      await kigi.until(
        () => kigi.seen.updates.some((u) => u.update.sessionUpdate === "available_commands_update"),
        "available_commands_update",
      );
      const first = await prompt(ctx, session.sessionId, "#compact read big.txt");
      const compacted = await prompt(ctx, session.sessionId, "/compact and now?");
      return { session, stopReasons: [first.stopReason, compacted.stopReason] };
    });
    const exit = await kigi.stop();
    return { ...result, ...kigi.seen, exit };
  },
  // A prompt with an image, an embedded (unsaved) buffer and a link to a file; then one
  // whose link names a file that is not there.
  attach: async () => {
    const kigi = startKigi("allow_once");
    const result = await kigi.run(async (ctx) => {
      const init = await initialize(ctx);
      const { sessionId } = await newSession(ctx);
      const first = await promptOutcome(
        ctx,
        sessionId,
        [
          { type: "text", text: "#attach what do you see" },
          { type: "image", mimeType: "image/png", data: PIXEL_PNG },
          {
            type: "resource",
            resource: { uri: `file://${REPO}/unsaved.rs`, mimeType: "text/x-rust", text: "fn unsaved_buffer() {}\n" },
          },
          { type: "resource_link", name: "a.txt", uri: `file://${REPO}/a.txt` },
        ],
        "the prompt with attachments",
      );
      const missing = await promptOutcome(
        ctx,
        sessionId,
        [
          { type: "text", text: "#attach and this one" },
          { type: "resource_link", name: "missing.txt", uri: `file://${REPO}/missing.txt` },
        ],
        "the prompt with a missing file",
      );
      return { init, first, missing };
    });
    const exit = await kigi.stop();
    return { ...result, ...kigi.seen, exit };
  },

  // initialize, session/new, and an answer streamed in chunks.
  stream: () => onePrompt("allow_once", "#stream say hello"),
  // A tool call with its kind, location, kigi/tool meta and final content.
  tool: () => onePrompt("allow_once", "#tool read a.txt"),
  // A write that asks, is allowed, and lands through fs/write_text_file.
  write: () => onePrompt("allow_once", "#write take notes"),
  // A command the client rejects.
  deny: () => onePrompt("reject_once", "#deny touch a file"),
  // A child on an ACP executor (`kigi acp` again): its write is asked of this client.
  executor_allow: () => onePrompt("allow_once", "#parent go"),
  executor_reject: () => onePrompt("reject_once", "#parent go"),
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
  // A subagent that reads and writes files: through the client's fs methods too.
  subagentFiles: () => onePrompt("allow_once", "#files-parent delegate"),
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
      // The slash commands are announced after the answer, which the client may see first.
      const replayed = second.seen.updates.filter((u) => u.update.sessionUpdate !== "available_commands_update").length;
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
