// The README's way around Vite 6's dev server, whose dependency pre-bundling
// moves the entry away from its .wasm (vitejs/vite#8427, fixed in Vite 8):
// ask Vite for the .wasm's URL and pass it to init().
import wasmUrl from 'agent-trajectories/agent_trajectories_bg.wasm?url';
import { init } from 'agent-trajectories';

init(wasmUrl).then(() => import('./main.js'));
