export function App(props: { name: string }) {
  return <div>{props.name}</div>;
}
