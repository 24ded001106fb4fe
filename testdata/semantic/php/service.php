<?php
namespace App;

class UserService
{
    /** By id. */
    #[Pure]
    public function findById($id)
    {
        return null;
    }

    public function save($u)
    {
    }
}

function helper() {}

function helper() {}
