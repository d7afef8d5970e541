// The knowledge base pickers (search and documents tabs), filled from GET /kbs.

import { $, api, setOptions } from "./core.js";

/** Refresh the kb pickers; a picked kb that no longer exists falls back to "all". */
export async function loadKbs() {
  try {
    const reply = await api("/kbs");
    const names = reply.kbs.map((kb) => kb.name);
    setOptions($("kb"), names);
    setOptions($("docs-kb"), names);
    return true;
  } catch {
    return false;
  }
}
