/**
 * The peer of bench/editor.ts: a plain React Flow page with the same nodes and edges as the
 * editor's document (default nodes, no custom node types, no app store), a canvas of the same
 * size, the same dots background, controls, minimap, dark mode and zoom limits. It opens a graph
 * the way the editor's Open dialog does: a click on `file-<name>` fetches it and replaces the
 * canvas, which is framed once every node is measured.
 *
 * Query: `?files=a.json,b.json&w=WIDTH&h=HEIGHT`.
 */
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesInitialized,
  useNodesState,
  useReactFlow,
} from '@xyflow/react';
import { useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';

const query = new URLSearchParams(location.search);
const files = (query.get('files') ?? '').split(',').filter(Boolean);
const size = { width: Number(query.get('w') ?? 1000), height: Number(query.get('h') ?? 700) };

function Peer() {
  const [nodes, setNodes, onNodesChange] = useNodesState([]);
  const [edges, setEdges, onEdgesChange] = useEdgesState([]);
  const [epoch, setEpoch] = useState(0);
  const initialized = useNodesInitialized();
  const { fitView } = useReactFlow();
  const framed = useRef(0);
  useEffect(() => {
    if (initialized && framed.current !== epoch) {
      framed.current = epoch;
      void fitView({ padding: 0.15, duration: 0 });
    }
  }, [initialized, epoch, fitView]);

  const open = async (name) => {
    const graph = await (await fetch(`./graphs/${name}`)).json();
    setNodes(graph.nodes);
    setEdges(graph.edges);
    setEpoch((e) => e + 1);
  };

  return (
    <>
      <div style={{ display: 'flex', gap: 4, height: 28 }}>
        {files.map((name) => (
          <button key={name} type="button" data-testid={`file-${name}`} onClick={() => open(name)}>
            {name}
          </button>
        ))}
      </div>
      <div style={size}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          colorMode="dark"
          minZoom={0.1}
        >
          <Background variant={BackgroundVariant.Dots} gap={20} size={1} />
          <Controls />
          <MiniMap pannable zoomable />
        </ReactFlow>
      </div>
    </>
  );
}

createRoot(document.getElementById('root')).render(
  <ReactFlowProvider>
    <Peer />
  </ReactFlowProvider>,
);
