import React from "react";

/** The app. */
export function App(props: { name: string }) {
  return <div>{props.name}</div>;
}

export class Panel extends React.Component {
  render() {
    return <span />;
  }
}

function Item() {
  return <li />;
}

function Item() {
  return <li />;
}
